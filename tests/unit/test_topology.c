/*
 * test_topology.c: the reader of Slurm's topology.conf and its resolution against a job
 * (collectives/topology_conf.c): good files (host-list ranges, nested switches, comments,
 * mixed-case keys, LinkSpeed), the message of every kind of error, switch distances and the
 * depth-first order of hosts.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aot_topology_conf.h"

static int parse(struct aot_topology *t, const char *text, char *err, size_t errlen)
{
    return aot_topology_parse(t, text, strlen(text), "t.conf", err, errlen);
}

static int sw_index(const struct aot_topology *t, const char *name)
{
    for (int i = 0; i < t->nsw; i++)
        if (!strcmp(t->sw[i].name, name))
            return i;
    ck_abort_msg("no switch %s", name);
    return -1;
}

/* The name of the switch host h of job j is attached to. */
static const char *host_sw(const struct aot_topology *t, const struct aot_topo_job *j, int h)
{
    return t->sw[j->file_switch[j->host_switch[h]]].name;
}

static void assert_node(const struct aot_topology *t, const char *node, const char *sw, int line)
{
    const struct aot_topo_node *n = aot_topology_node(t, node);
    ck_assert_msg(n != NULL, "node %s missing", node);
    ck_assert_str_eq(t->sw[n->sw].name, sw);
    ck_assert_int_eq(n->line, line);
}

/* Two levels below the top, lines in any order, keys in any case, comments, blank lines, tabs,
 * CRLF line ends, LinkSpeed kept. */
static const char *nested =
    "# a two-level tree\n"                                      /* 1 */
    "\n"                                                        /* 2 */
    "SwitchName=top Switches=mid[0-1]   # the core\n"           /* 3 */
    "switchname=mid0 SWITCHES=leaf[0-1] linkspeed=10000\n"      /* 4 */
    "SwitchName=mid1\tSwitches=leaf2\r\n"                       /* 5 */
    "  SwitchName=leaf0 Nodes=node[0-3,7] LinkSpeed=1000\n"     /* 6 */
    "SwitchName=leaf1 nodes=node[4-6],node8\n"                  /* 7 */
    "SwitchName=leaf2 Nodes=gpu[00-02] \n"                      /* 8 */
    "#SwitchName=leaf3 Nodes=gone[0-9]\n";                      /* 9 */

START_TEST(test_parse_nested)
{
    struct aot_topology t;
    char err[512] = "";
    int top, mid0, mid1, leaf0, leaf1, leaf2;

    ck_assert_msg(parse(&t, nested, err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(t.file, "t.conf");
    ck_assert_int_eq(t.nsw, 6);
    ck_assert_int_eq(t.nnode, 12);
    top = sw_index(&t, "top");
    mid0 = sw_index(&t, "mid0");
    mid1 = sw_index(&t, "mid1");
    leaf0 = sw_index(&t, "leaf0");
    leaf1 = sw_index(&t, "leaf1");
    leaf2 = sw_index(&t, "leaf2");
    ck_assert_int_eq(t.sw[top].parent, -1);
    ck_assert_int_eq(t.sw[top].parent_line, 0);
    ck_assert_int_eq(t.sw[top].depth, 0);
    ck_assert_int_eq(t.sw[top].line, 3);
    ck_assert_int_eq(t.sw[mid0].parent, top);
    ck_assert_int_eq(t.sw[mid0].parent_line, 3);
    ck_assert_int_eq(t.sw[mid0].depth, 1);
    ck_assert_int_eq(t.sw[mid1].parent, top);
    ck_assert_int_eq(t.sw[leaf0].parent, mid0);
    ck_assert_int_eq(t.sw[leaf0].parent_line, 4);
    ck_assert_int_eq(t.sw[leaf0].depth, 2);
    ck_assert_int_eq(t.sw[leaf1].parent, mid0);
    ck_assert_int_eq(t.sw[leaf2].parent, mid1);
    ck_assert_int_eq(t.sw[leaf2].parent_line, 5);
    ck_assert_int_eq(t.sw[leaf2].depth, 2);
    /* children in the order Switches= lists them */
    ck_assert_int_eq(t.sw[top].nchild, 2);
    ck_assert_int_eq(t.sw[top].child[0], mid0);
    ck_assert_int_eq(t.sw[top].child[1], mid1);
    ck_assert_int_eq(t.sw[mid0].nchild, 2);
    ck_assert_int_eq(t.sw[mid0].child[0], leaf0);
    ck_assert_int_eq(t.sw[mid0].child[1], leaf1);
    ck_assert_int_eq(t.sw[leaf0].nchild, 0);
    /* LinkSpeed kept as written */
    ck_assert_str_eq(t.sw[mid0].link_speed, "10000");
    ck_assert_str_eq(t.sw[leaf0].link_speed, "1000");
    ck_assert_ptr_null(t.sw[top].link_speed);
    /* the ranges, as Slurm expands them */
    assert_node(&t, "node0", "leaf0", 6);
    assert_node(&t, "node3", "leaf0", 6);
    assert_node(&t, "node7", "leaf0", 6);
    assert_node(&t, "node4", "leaf1", 7);
    assert_node(&t, "node6", "leaf1", 7);
    assert_node(&t, "node8", "leaf1", 7);
    assert_node(&t, "gpu00", "leaf2", 8);
    assert_node(&t, "gpu02", "leaf2", 8);
    ck_assert_ptr_null(aot_topology_node(&t, "gpu0"));
    ck_assert_ptr_null(aot_topology_node(&t, "gpu03"));
    ck_assert_ptr_null(aot_topology_node(&t, "node9"));
    ck_assert_ptr_null(aot_topology_node(&t, "gone0"));
    ck_assert_ptr_null(aot_topology_node(&t, "NODE0"));  /* node names keep their case */
    aot_topology_free(&t);
    ck_assert_int_eq(t.nsw, 0);
    ck_assert_ptr_null(t.sw);
}
END_TEST

/* A job on part of the tree: only the switches above its hosts, numbered depth-first. */
START_TEST(test_resolve_nested)
{
    static const char *const hosts[] = {"gpu01", "node5", "node0", "node7", "node4"};
    static const int order[] = {2, 3, 1, 4, 0};     /* leaf0: node0 node7; leaf1; leaf2 */
    static const int dist[5][5] = {
        {0, 4, 4, 4, 4},
        {4, 0, 2, 2, 0},
        {4, 2, 0, 0, 2},
        {4, 2, 0, 0, 2},
        {4, 0, 2, 2, 0},
    };
    struct aot_topology t;
    struct aot_topo_job j;
    char err[512] = "";

    ck_assert_msg(parse(&t, nested, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(aot_topology_resolve(&t, 5, hosts, &j, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(j.nhosts, 5);
    ck_assert_int_eq(j.nsw, 6);
    /* depth-first: top, mid0, leaf0, leaf1, mid1, leaf2 */
    ck_assert_str_eq(t.sw[j.file_switch[0]].name, "top");
    ck_assert_str_eq(t.sw[j.file_switch[1]].name, "mid0");
    ck_assert_str_eq(t.sw[j.file_switch[2]].name, "leaf0");
    ck_assert_str_eq(t.sw[j.file_switch[3]].name, "leaf1");
    ck_assert_str_eq(t.sw[j.file_switch[4]].name, "mid1");
    ck_assert_str_eq(t.sw[j.file_switch[5]].name, "leaf2");
    {
        static const int parent[] = {-1, 0, 1, 1, 0, 4}, depth[] = {0, 1, 2, 2, 1, 2};
        for (int s = 0; s < 6; s++) {
            ck_assert_int_eq(j.parent[s], parent[s]);
            ck_assert_int_eq(j.depth[s], depth[s]);
        }
    }
    ck_assert_str_eq(host_sw(&t, &j, 0), "leaf2");
    ck_assert_str_eq(host_sw(&t, &j, 1), "leaf1");
    ck_assert_str_eq(host_sw(&t, &j, 2), "leaf0");
    ck_assert_str_eq(host_sw(&t, &j, 3), "leaf0");
    ck_assert_str_eq(host_sw(&t, &j, 4), "leaf1");
    for (int i = 0; i < 5; i++)
        ck_assert_msg(j.order[i] == order[i], "order[%d] = %d, expected %d", i, j.order[i],
                      order[i]);
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 5; b++)
            ck_assert_msg(aot_topo_distance(&j, a, b) == dist[a][b],
                          "distance(%s, %s) = %d, expected %d", hosts[a], hosts[b],
                          aot_topo_distance(&j, a, b), dist[a][b]);
    aot_topo_job_free(&j);
    ck_assert_ptr_null(j.order);

    /* Hosts of one leaf only: the switches above it, nothing of mid1's side. */
    {
        static const char *const two[] = {"node8", "node6"};
        ck_assert_msg(aot_topology_resolve(&t, 2, two, &j, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(j.nsw, 3);
        ck_assert_str_eq(t.sw[j.file_switch[0]].name, "top");
        ck_assert_str_eq(t.sw[j.file_switch[1]].name, "mid0");
        ck_assert_str_eq(t.sw[j.file_switch[2]].name, "leaf1");
        ck_assert_int_eq(j.host_switch[0], 2);
        ck_assert_int_eq(j.host_switch[1], 2);
        ck_assert_int_eq(j.order[0], 0);
        ck_assert_int_eq(j.order[1], 1);
        ck_assert_int_eq(aot_topo_distance(&j, 0, 1), 0);
        aot_topo_job_free(&j);
    }
    aot_topology_free(&t);
}
END_TEST

/* The file autoopt-netcluster writes for 6 hosts on 3 switches: its bridges are a chain
 * (br0 - br1 - br2), written as br0 above br1 above br2, with hosts on every level. */
START_TEST(test_resolve_chain)
{
    static const char *chain =
        "# autoopt-netcluster: 6 hosts, 3 switches\n"
        "SwitchName=br0 Nodes=node[0-1] Switches=br1 LinkSpeed=100mbit\n"
        "SwitchName=br1 Nodes=node[2-3] Switches=br2 LinkSpeed=100mbit\n"
        "SwitchName=br2 Nodes=node[4-5] LinkSpeed=100mbit\n";
    static const char *const hosts[] = {"node0", "node1", "node2", "node3", "node4", "node5"};
    static const char *const rev[] = {"node5", "node4", "node3", "node2", "node1", "node0"};
    struct aot_topology t;
    struct aot_topo_job j;
    char err[512] = "";

    ck_assert_msg(parse(&t, chain, err, sizeof(err)) == 0, "%s", err);
    ck_assert_msg(aot_topology_resolve(&t, 6, hosts, &j, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(j.nsw, 3);
    for (int h = 0; h < 6; h++) {
        ck_assert_int_eq(j.host_switch[h], h / 2);
        ck_assert_int_eq(j.order[h], h);
        for (int g = 0; g < 6; g++)
            ck_assert_int_eq(aot_topo_distance(&j, h, g), abs(h / 2 - g / 2));
    }
    aot_topo_job_free(&j);
    /* job order reversed: the depth-first order is still by switch, job order within one */
    ck_assert_msg(aot_topology_resolve(&t, 6, rev, &j, err, sizeof(err)) == 0, "%s", err);
    {
        static const int order[] = {4, 5, 2, 3, 0, 1};
        for (int i = 0; i < 6; i++)
            ck_assert_int_eq(j.order[i], order[i]);
    }
    aot_topo_job_free(&j);
    aot_topology_free(&t);
}
END_TEST

START_TEST(test_read_file)
{
    char path[] = "/tmp/aot-topology-XXXXXX";
    struct aot_topology t;
    char err[512] = "", want[600];
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, nested, strlen(nested)), (ssize_t)strlen(nested));
    close(fd);
    ck_assert_msg(aot_topology_read(&t, path, err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(t.file, path);
    ck_assert_int_eq(t.nsw, 6);
    aot_topology_free(&t);
    /* errors name the path given */
    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "SwitchName=s0 Node=n1\n", 22), 22);
    close(fd);
    ck_assert_int_eq(aot_topology_read(&t, path, err, sizeof(err)), -1);
    snprintf(want, sizeof(want),
             "%s:1: unknown key 'Node' (expected SwitchName, Switches, Nodes or LinkSpeed)", path);
    ck_assert_str_eq(err, want);
    unlink(path);
    ck_assert_int_eq(aot_topology_read(&t, path, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, path) != NULL && strstr(err, "topology file") != NULL, "%s", err);
    ck_assert_int_eq(t.nsw, 0);
}
END_TEST

START_TEST(test_errors)
{
    static const struct { const char *text, *msg; } cases[] = {
        {"", "t.conf: no switches (expected lines like 'SwitchName=s0 Nodes=node[0-3]')"},
        {"# nothing\n\n  \n", "t.conf: no switches (expected lines like "
                              "'SwitchName=s0 Nodes=node[0-3]')"},
        /* unknown key */
        {"SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=n2 Speed=10\n",
         "t.conf:2: unknown key 'Speed' (expected SwitchName, Switches, Nodes or LinkSpeed)"},
        {"SwitchName=s0 Children=2\n",
         "t.conf:1: unknown key 'Children' (expected SwitchName, Switches, Nodes or LinkSpeed)"},
        /* syntax */
        {"SwitchName s0 Nodes=n1\n",
         "t.conf:1: syntax error at 'SwitchName' (expected KEY=VALUE, e.g. SwitchName=s0 "
         "Nodes=node[0-3])"},
        {"SwitchName=s0 =n1\n",
         "t.conf:1: syntax error at '=n1' (expected KEY=VALUE, e.g. SwitchName=s0 "
         "Nodes=node[0-3])"},
        {"SwitchName=s0 Nodes=\n", "t.conf:1: Nodes= has no value"},
        {"SwitchName=s0 Nodes=n1 nodes=n2\n", "t.conf:1: Nodes= given twice"},
        {"Nodes=n[0-3]\n", "t.conf:1: Nodes= without SwitchName= (each line describes one "
                           "switch)"},
        {"SwitchName=s\033[2J0\n",
         "t.conf:1: bad switch name 's\\x1b[2J0' (expected letters, digits, '-', '_' and '.')"},
        {"SwitchName=s[0-1] Nodes=n1\n",
         "t.conf:1: bad switch name 's[0-1]' (expected letters, digits, '-', '_' and '.')"},
        {"SwitchName=s0 Nodes=n[a-b]\n",
         "t.conf:1: Nodes=n[a-b]: Slurm's host-list parser rejects it"},
        {"SwitchName=s0 Nodes=n[3-1]\n",
         "t.conf:1: Nodes=n[3-1]: Slurm's host-list parser rejects it"},
        {"SwitchName=s0 Nodes=n:1\n",
         "t.conf:1: Nodes=n:1: bad name 'n:1' (expected letters, digits, '-', '_', '.', and "
         "ranges like node[0-3,7])"},
        /* an unclosed range: Slurm makes "n]" of it, which no host is called */
        {"SwitchName=s0 Nodes=n[0-3\n",
         "t.conf:1: Nodes=n[0-3: bad name 'n]' (expected letters, digits, '-', '_', '.', and "
         "ranges like node[0-3,7])"},
        {"SwitchName=s0 Nodes=n[0-99999999]\n",
         "t.conf:1: Nodes=n[0-99999999]: Slurm's host-list parser rejects it"},
        {"SwitchName=s0 Nodes=,\n", "t.conf:1: Nodes=, names nothing"},
        {"SwitchName=s0 Nodes=a\0b\n", "t.conf:1: a NUL byte (not a text file)"},
        /* a switch defined twice, a node listed twice */
        {"SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=n2\nSwitchName=s0 Nodes=n3\n",
         "t.conf:3: switch s0 is defined twice (first on line 1)"},
        {"SwitchName=s0 Nodes=n[0-3]\nSwitchName=s1 Nodes=n[4-5]\nSwitchName=s2 Nodes=n[5-9]\n"
         "SwitchName=top Switches=s[0-2]\n",
         "t.conf:3: node n5 is listed twice (first on line 2, under switch s1)"},
        {"SwitchName=s0 Nodes=n[0-3],n2\n",
         "t.conf:1: node n2 is listed twice (first on line 1, under switch s0)"},
        /* the earliest second listing is the one reported */
        {"SwitchName=s0 Nodes=a[0-3]\nSwitchName=s1 Nodes=b1\nSwitchName=s2 Nodes=b[0-3]\n"
         "SwitchName=s3 Nodes=a2\n",
         "t.conf:3: node b1 is listed twice (first on line 2, under switch s1)"},
        /* switches */
        {"SwitchName=s0 Nodes=n1\nSwitchName=top Switches=s[0-1]\n",
         "t.conf:2: unknown switch 's1' in Switches= of top (no SwitchName=s1 line)"},
        {"SwitchName=s0 Nodes=n1\nSwitchName=a Switches=s0\nSwitchName=b Switches=s0\n",
         "t.conf:3: switch s0 is listed under two parents: a (line 2) and b"},
        {"SwitchName=s0 Nodes=n1 Switches=s0\n", "t.conf:1: switch cycle: s0 -> s0"},
        {"SwitchName=a Switches=b Nodes=n1\nSwitchName=b Switches=c\nSwitchName=c Switches=a\n",
         "t.conf:3: switch cycle: a -> b -> c -> a"},
        {"SwitchName=c Switches=a\nSwitchName=top Switches=x\nSwitchName=x Nodes=n1\n"
         "SwitchName=b Switches=c\nSwitchName=a Switches=b\n",
         "t.conf:5: switch cycle: b -> c -> a -> b"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct aot_topology t;
        char err[512] = "";
        size_t len = strlen(cases[i].text);
        if (strstr(cases[i].msg, "NUL byte"))
            len += 1 + strlen(cases[i].text + len + 1);
        ck_assert_msg(aot_topology_parse(&t, cases[i].text, len, "t.conf", err, sizeof(err)) ==
                      -1, "case %zu parsed", i);
        ck_assert_msg(!strcmp(err, cases[i].msg), "case %zu:\n  got  %s\n  want %s", i, err,
                      cases[i].msg);
        ck_assert_int_eq(t.nsw, 0);
        ck_assert_ptr_null(t.file);
    }
}
END_TEST

START_TEST(test_resolve_errors)
{
    static const char *text =
        "SwitchName=s0 Nodes=node[0-3]\n"
        "SwitchName=s1 Nodes=node[4-7]\n"
        "SwitchName=top Switches=s[0-1]\n"
        "SwitchName=lone Nodes=other[0-1]\n";
    static const struct { int n; const char *hosts[4]; const char *msg; } cases[] = {
        {2, {"node0", "node9"}, "t.conf: host node9 of this job is not in t.conf"},
        {2, {"node0", "Node1"}, "t.conf: host Node1 of this job is not in t.conf"},
        {2, {"node0", "node1\n"}, "t.conf: host node1\\n of this job is not in t.conf"},
        {3, {"node0", "node5", "node0"},
         "t.conf: host node0 is given twice for this job (hosts 0 and 2)"},
        {3, {"node0", "node5", "other1"},
         "t.conf: hosts node0 and other1 of this job are in separate trees (switches top and "
         "lone have no common parent)"},
    };
    struct aot_topology t;
    char err[512] = "";

    ck_assert_msg(parse(&t, text, err, sizeof(err)) == 0, "%s", err);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct aot_topo_job j;
        ck_assert_msg(aot_topology_resolve(&t, cases[i].n, cases[i].hosts, &j, err,
                                           sizeof(err)) == -1, "case %zu resolved", i);
        ck_assert_msg(!strcmp(err, cases[i].msg), "case %zu:\n  got  %s\n  want %s", i, err,
                      cases[i].msg);
        ck_assert_ptr_null(j.host_switch);
    }
    /* a job inside the separate tree is fine */
    {
        static const char *const lone[] = {"other1", "other0"};
        struct aot_topo_job j;
        ck_assert_msg(aot_topology_resolve(&t, 2, lone, &j, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(j.nsw, 1);
        ck_assert_int_eq(j.parent[0], -1);
        ck_assert_int_eq(aot_topo_distance(&j, 0, 1), 0);
        aot_topo_job_free(&j);
    }
    aot_topology_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topology");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_parse_nested);
    tcase_add_test(tc, test_resolve_nested);
    tcase_add_test(tc, test_resolve_chain);
    tcase_add_test(tc, test_read_file);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_resolve_errors);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
