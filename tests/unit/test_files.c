/*
 * test_files.c: src/files.c's writers (issue 55, item 1): a regular file or a new name is
 * written whole; a symbolic link of ours is followed (its target gets the contents, the link
 * stays a link); a device, FIFO, socket or directory is refused with one line, "PATH: reason",
 * and left exactly as it was; aot_file_check_writable says the same without writing.
 * The character device needs root (mknod): skipped with a message otherwise.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "aot_files.h"

static char dir[] = "/tmp/aot-files-XXXXXX";

static void make_dir(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static char *at(const char *name)
{
    static char path[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(path[i], sizeof(path[i]), "%s/%s", dir, name);
    return path[i];
}

static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    size_t n;
    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int replace(const char *path, char *err)
{
    return aot_file_replace_text(path, "new\n", 4, err, 512);
}

/* The entries of dir, to see that no temporary file was left. */
static int entries(void)
{
    char cmd[128];
    int n = -1;
    FILE *p;
    snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
    p = popen(cmd, "r");
    if (p && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

/* A special file: refused by both functions with the expected line; same inode, kind, rdev. */
static void refused(const char *path, const char *kind)
{
    struct stat a, b;
    char err[512], want[600];
    int before = entries();

    ck_assert_int_eq(lstat(path, &a), 0);
    snprintf(want, sizeof(want), "%s: refused: it is %s (only a regular file, a new name or a "
             "symbolic link to one is written)", path, kind);
    ck_assert_int_eq(aot_file_check_writable(path, err, sizeof(err)), -1);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(replace(path, err), -1);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(lstat(path, &b), 0);
    ck_assert_uint_eq(a.st_ino, b.st_ino);
    ck_assert_uint_eq(a.st_mode, b.st_mode);
    ck_assert_uint_eq(a.st_rdev, b.st_rdev);
    ck_assert_int_eq(entries(), before);
}

START_TEST(test_new_and_regular)
{
    char err[512];
    struct stat st;

    make_dir();
    ck_assert_int_eq(aot_file_check_writable(at("new"), err, sizeof(err)), 0);
    ck_assert_int_eq(replace(at("new"), err), 0);
    ck_assert_str_eq(slurp(at("new")), "new\n");
    /* an existing file keeps its mode */
    ck_assert_int_eq(chmod(at("new"), 0640), 0);
    ck_assert_int_eq(aot_file_replace_text(at("new"), "again\n", 6, err, sizeof(err)), 0);
    ck_assert_str_eq(slurp(at("new")), "again\n");
    ck_assert_int_eq(stat(at("new"), &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(entries(), 1);
    /* a name in a directory that does not exist */
    ck_assert_int_eq(aot_file_check_writable(at("none/x"), err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "does not exist"));
    remove_dir();
}
END_TEST

START_TEST(test_special)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd;

    make_dir();
    ck_assert_int_eq(mkfifo(at("fifo"), 0600), 0);
    refused(at("fifo"), "a FIFO");
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at("socket"));
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
    refused(at("socket"), "a socket");
    close(fd);
    ck_assert_int_eq(mkdir(at("sub"), 0700), 0);
    refused(at("sub"), "a directory");
    if (geteuid() == 0) {
        ck_assert_int_eq(mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)), 0);
        refused(at("null"), "a character device");
    } else {
        fprintf(stderr, "test_special: not root, the character device (mknod) is skipped\n");
    }
    remove_dir();
}
END_TEST

START_TEST(test_symlinks)
{
    char err[512], want[600];
    struct stat st;

    make_dir();
    /* a link to a regular file: followed, the link stays a link */
    ck_assert_int_eq(symlink("target", at("link")), 0);
    FILE *f = fopen(at("target"), "w");
    ck_assert_ptr_nonnull(f);
    fputs("old\n", f);
    fclose(f);
    ck_assert_int_eq(aot_file_check_writable(at("link"), err, sizeof(err)), 0);
    ck_assert_int_eq(replace(at("link"), err), 0);
    ck_assert_int_eq(lstat(at("link"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_str_eq(slurp(at("target")), "new\n");
    /* a chain of two links to an absent name: the name is created */
    ck_assert_int_eq(symlink("link3", at("link2")), 0);
    ck_assert_int_eq(symlink(at("absent"), at("link3")), 0);
    ck_assert_int_eq(aot_file_check_writable(at("link2"), err, sizeof(err)), 0);
    ck_assert_int_eq(replace(at("link2"), err), 0);
    ck_assert_str_eq(slurp(at("absent")), "new\n");
    ck_assert_int_eq(lstat(at("link2"), &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    /* a link to a FIFO: refused, naming the link and where it leads */
    ck_assert_int_eq(mkfifo(at("fifo"), 0600), 0);
    ck_assert_int_eq(symlink("fifo", at("tofifo")), 0);
    snprintf(want, sizeof(want), "%s: refused: %s, where its symbolic link leads, is a FIFO "
             "(only a regular file, a new name or a symbolic link to one is written)",
             at("tofifo"), at("fifo"));
    ck_assert_int_eq(aot_file_check_writable(at("tofifo"), err, sizeof(err)), -1);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(replace(at("tofifo"), err), -1);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(lstat(at("fifo"), &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    /* a loop */
    ck_assert_int_eq(symlink("loop2", at("loop1")), 0);
    ck_assert_int_eq(symlink("loop1", at("loop2")), 0);
    ck_assert_int_eq(aot_file_check_writable(at("loop1"), err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "more than 40 symbolic links"));
    /* a link of another user is not followed (the attack of a sticky /tmp) */
    if (geteuid() == 0) {
        ck_assert_int_eq(symlink("target", at("theirs")), 0);
        ck_assert_int_eq(lchown(at("theirs"), 65534, 65534), 0);
        ck_assert_int_eq(aot_file_check_writable(at("theirs"), err, sizeof(err)), -1);
        ck_assert_ptr_nonnull(strstr(err, "symbolic link of another user"));
        ck_assert_int_eq(replace(at("theirs"), err), -1);
        ck_assert_str_eq(slurp(at("target")), "new\n");
        /* root keeps the owner of another user's regular file */
        ck_assert_int_eq(chown(at("target"), 65534, 65534), 0);
        ck_assert_int_eq(aot_file_replace_text(at("link"), "kept\n", 5, err, sizeof(err)), 0);
        ck_assert_int_eq(stat(at("target"), &st), 0);
        ck_assert_uint_eq(st.st_uid, 65534);
        ck_assert_uint_eq(st.st_gid, 65534);
        ck_assert_str_eq(slurp(at("target")), "kept\n");
    }
    remove_dir();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("files");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_new_and_regular);
    tcase_add_test(tc, test_special);
    tcase_add_test(tc, test_symlinks);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
