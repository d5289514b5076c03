#!/usr/bin/env bash
# bench-mkdocs.sh: kbook build against mkdocs build on the real MkDocs
# corpora (../shared/mkdocs/{k0s,sveltos,k0rdent}), in the same run, on the
# same machine: the minimum wall time of RUNS builds of each, their ratio
# (target: kbook <= 0.8x MkDocs, issue 37) and the load average when each
# corpus was measured (the machine is shared: a ratio means little without it).
#
# Only Debian's mkdocs (1.4.2) and mkdocs-material (8.2.5) are installable
# here (no Python package index); they are installed with apt when absent,
# and MkDocs gets a copy of each mkdocs.yml without what Debian lacks: the
# plugins other than search, Markdown extensions that do not import, the
# !!python/name emoji functions of material 9, and theme.custom_dir
# (material 9 templates), its palette icons and extra.social. kbook builds the project as it is (--no-run
# --no-search: neither side runs anything or indexes for search).
#
#   hack/bench-mkdocs.sh [CORPUS_DIR...]     RUNS=3 KBOOK=bin/kbook
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
KBOOK=${KBOOK:-bin/kbook}
corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then
	corpora=(../shared/mkdocs/k0s ../shared/mkdocs/sveltos ../shared/mkdocs/k0rdent)
fi
for c in "${corpora[@]}"; do
	[ -f "$c/mkdocs.yml" ] || { echo "bench-mkdocs: $c/mkdocs.yml: no such corpus (the real MkDocs projects live in ../shared/mkdocs)" >&2; exit 2; }
done
if ! command -v mkdocs >/dev/null || ! python3 -c 'import material' 2>/dev/null && ! dpkg -s mkdocs-material >/dev/null 2>&1; then
	echo "bench-mkdocs: installing Debian's mkdocs and mkdocs-material" >&2
	apt-get install -y -q mkdocs mkdocs-material >/dev/null
fi
[ -x "$KBOOK" ] || go build -o "$KBOOK" ./cmd/kbook
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# mkdocs_config CORPUS OUT: the copy of mkdocs.yml MkDocs 1.4 can build.
mkdocs_config() {
	python3 - "$1" "$2" <<'PY'
import importlib, os, sys, yaml

class Loader(yaml.SafeLoader):
    pass

def any_tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return "!" + suffix
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)

Loader.add_multi_constructor("!", any_tag)
Loader.add_multi_constructor("tag:yaml.org,2002:python/", any_tag)
corpus, out = sys.argv[1], sys.argv[2]
cfg = yaml.load(open(os.path.join(corpus, "mkdocs.yml")), Loader=Loader)
cfg["docs_dir"] = os.path.abspath(os.path.join(corpus, cfg.get("docs_dir", "docs")))
cfg["site_dir"] = os.path.abspath(out + ".site")
for k in ("validation", "exclude_docs", "INHERIT"):
    cfg.pop(k, None)
cfg["plugins"] = ["search"]
# material 9's templates, palette and social icons are not in material 8.
theme = cfg.get("theme") if isinstance(cfg.get("theme"), dict) else {}
cfg["theme"] = {"name": "material", **{k: theme[k] for k in ("features", "logo", "favicon", "language") if k in theme}}
if isinstance(cfg.get("extra"), dict):
    cfg["extra"].pop("social", None)
def importable(name):
    try:
        importlib.import_module(name)
        return True
    except Exception:
        try:
            importlib.import_module("markdown.extensions." + name)
            return True
        except Exception:
            return False
exts = []
for e in cfg.get("markdown_extensions") or []:
    name, opts = (e, None) if isinstance(e, str) else next(iter(e.items()))
    if name == "pymdownx.emoji" or not importable(name):
        continue
    if isinstance(opts, dict):
        opts = {k: v for k, v in opts.items() if not (isinstance(v, str) and v.startswith("!"))}
        if name == "pymdownx.superfences":
            opts.pop("custom_fences", None)
    exts.append(name if opts is None else {name: opts})
cfg["markdown_extensions"] = exts
yaml.safe_dump(cfg, open(out, "w"), sort_keys=False, allow_unicode=True)
PY
}

# wall CMD...: the wall time of one run in seconds; a failure stops the benchmark.
wall() {
	local start end
	start=$(date +%s.%N)
	if ! "$@" >"$work/log" 2>&1; then
		echo "bench-mkdocs: failed: $*" >&2
		tail -20 "$work/log" >&2
		exit 1
	fi
	end=$(date +%s.%N)
	echo "$end - $start" | bc
}

min() { printf '%s\n' "$@" | sort -g | head -1; }

printf '%-10s %6s %12s %12s %7s  %s\n' corpus pages "kbook (s)" "mkdocs (s)" ratio "load (1, 5, 15 min)"
for c in "${corpora[@]}"; do
	name=$(basename "$c")
	mkdocs_config "$c" "$work/$name.yml"
	k=() m=()
	for _ in $(seq "$RUNS"); do
		rm -rf "$work/out"
		k+=("$(wall "$KBOOK" build --no-run --no-search --out "$work/out" "$c")")
		m+=("$(wall mkdocs build -q -f "$work/$name.yml")")
	done
	pages=$(find "$work/out/next" -name index.html | wc -l)
	kt=$(min "${k[@]}") mt=$(min "${m[@]}")
	printf '%-10s %6d %12.2f %12.2f %6.2fx  %s\n' "$name" "$pages" "$kt" "$mt" "$(echo "$kt / $mt" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "min wall of $RUNS runs each; $("$KBOOK" version 2>&1 | head -1), $(mkdocs --version | sed 's/ from.*//'), mkdocs-material $(dpkg-query -W -f='${Version}' mkdocs-material 2>/dev/null)"
