#!/bin/sh
# maps_test.sh: autoopt-maps on a small hand-written map (tools.maps).
# SPDX-License-Identifier: GPL-2.0-or-later
#
# usage: maps_test.sh AUTOOPT-MAPS SAMPLE-CSV OUT-DIR
#   Bad input first (it needs no matplotlib): a wrong header exits 1 naming the file and line
#   2, an unknown option exits 2, an --encoding in no file exits 1.  Then, unless matplotlib
#   is missing (skip, 77), the sample's two encodings are drawn: every PNG and SVG exists, is
#   not empty, the PNG starts with the PNG signature, the SVG parses as XML, a decision map's
#   text names every method of its encoding (its legend) and a penalty map's text holds the
#   colorbar label.  --encoding exact draws that encoding alone.
set -u
maps=$1 sample=$2 out=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"

# A wrong header: exit 1, one line naming the file and the line.
{ echo '# autoopt-tune encode map bcast'; echo 'encoding,ranks,bytes,method,time_us'
  echo 'exact,2,1,native,3.0'; } >"$out/bad-header.csv"
"$maps" --out "$out/bad" "$out/bad-header.csv" >"$out/bad.out" 2>&1
rc=$?
cat "$out/bad.out"
[ $rc -eq 1 ] || fail "wrong header: exit $rc, expected 1"
grep -q "bad-header.csv:2: " "$out/bad.out" || fail "wrong header: the message names no file:line"
[ "$(wc -l <"$out/bad.out")" -eq 1 ] || fail "wrong header: more than one line of output"
[ ! -e "$out/bad" ] || fail "wrong header: pictures written anyway"

"$maps" --no-such-option "$sample" >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc, expected 2"
"$maps" --encoding no-such-encoding --out "$out/none" "$sample" >/dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "--encoding in no file: exit $rc, expected 1"

if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "skip: python3-matplotlib is not installed (apt-get install python3-matplotlib)"
    exit 77
fi

"$maps" --out "$out/all" --title-suffix 'tools.maps sample' "$sample" || fail "exit $?"
python3 - "$sample" "$out/all" <<'PY' || fail "pictures"
import csv, os, re, sys
import xml.etree.ElementTree as ET

sample, out = sys.argv[1:]
with open(sample) as f:
    coll = f.readline().split()[-1]
    methods = {}
    for row in csv.DictReader(f):
        methods.setdefault(row["encoding"], set()).add(row["method"])
bad = 0
for enc, used in methods.items():
    for kind in ("map", "penalty"):
        before = bad
        base = os.path.join(out, f"{coll}-{re.sub('[:=]', '_', enc)}-{kind}")
        for ext in ("png", "svg"):
            path = f"{base}.{ext}"
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                print(f"{path}: missing or empty")
                bad += 1
        if bad > before:
            continue
        with open(base + ".png", "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                print(f"{base}.png: no PNG signature")
                bad += 1
        try:
            root = ET.parse(base + ".svg").getroot()
        except ET.ParseError as e:
            print(f"{base}.svg: not XML: {e}")
            bad += 1
            continue
        texts = {"".join(t.itertext()).strip() for t in root.iter()
                 if t.tag.rsplit("}", 1)[-1] == "text"}
        want = used if kind == "map" else {"penalty against the exact map (%)"}
        for w in sorted(want):
            if not any(w == t or t.startswith(w) for t in texts):
                print(f"{base}.svg: no text element '{w}' (texts: {sorted(texts)})")
                bad += 1
        if bad == before:
            print(f"{base}.{{png,svg}}: ok ({', '.join(sorted(want))})")
sys.exit(1 if bad else 0)
PY

"$maps" --encoding exact --out "$out/exact" "$sample" >/dev/null || fail "--encoding exact: exit $?"
n=$(ls "$out/exact" | wc -l)
[ "$n" -eq 4 ] && [ -s "$out/exact/bcast-exact-map.png" ] ||
    fail "--encoding exact: $n files, expected bcast-exact-{map,penalty}.{png,svg}"
echo "ok: maps drawn with their legends"
