"""The documents point at files, sections, lines and modules that exist, import what exists, describe the
profiles as they ship, and send the reader nowhere outside the repository."""

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NAMED_FILE = re.compile(r"\b(?:sim|strategies|analysis|scripts|tests|examples)/[\w/]*\.(?:py|md|jsonl|toml|txt)\b")


#: Files a worked example tells the reader to write (docs/writing-strategies.md: a new card player).
WRITTEN_BY_THE_READER = {"strategies/cardplay/lowest.py"}


#: A markdown link or image: ``[text](target)``, the target without its title.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)")
#: A module, or a name in one, written as code in a document: `sim.rules.scoring.outcome_at_bid`.
NAMED_MODULE = re.compile(r"`((?:sim|strategies|analysis)(?:\.[A-Za-z_]\w*)+)`")
#: A line of a file named with it: sim/rules/scoring.py:42, or a link's #L42 or #L42-L50.
NAMED_LINE = re.compile(r"\b((?:sim|strategies|analysis|scripts|tests|examples)/[\w/]*\.\w+):(\d+)\b")
#: A page of the docs named in the code, with its section: docs/rules.md#winning-and-losing.
NAMED_SECTION = re.compile(r"\bdocs/([\w-]+\.md)(?:#([\w-]+))?")


def exists(name: str) -> bool:
    return (ROOT / name).exists() or name in WRITTEN_BY_THE_READER


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, made as GitHub makes them (a repeated heading gets -1, -2...)."""
    made: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", re.sub(r"```.*?```", "", page.read_text(), flags=re.S), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        made.add(next(f"{slug}-{k}" if k else slug for k in range(100) if (f"{slug}-{k}" if k else slug) not in made))
    return made


def line_count(path: Path) -> int:
    return len(path.read_text().splitlines())


def test_every_file_a_document_names_exists():
    missing = {f"{doc.name}: {name}" for doc in DOCUMENTS for name in NAMED_FILE.findall(doc.read_text())
               if not exists(name)}
    assert not missing, sorted(missing)


def test_every_link_of_a_document_leads_to_a_file_section_or_line_that_exists():
    """Links are relative to the page; a section is a heading of the page linked, a line (#L42) one of
    the file's lines; links to the web are not followed."""
    broken = []
    for doc in DOCUMENTS:
        for target in LINK.findall(doc.read_text()):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            name = file.relative_to(ROOT).as_posix() if file.is_relative_to(ROOT) else str(file)
            if not file.is_relative_to(ROOT) or not exists(name):
                broken.append(f"{doc.name}: {target} (no such file)")
            elif anchor and (lines := re.fullmatch(r"L(\d+)(?:-L(\d+))?", anchor)):
                if file.exists() and max(int(n) for n in lines.groups() if n) > line_count(file):
                    broken.append(f"{doc.name}: {target} (past the file's last line)")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{doc.name}: {target} (no such section)")
    assert not broken, broken


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return names


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    return next((f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()), None)


def test_every_module_and_line_a_document_names_exists():
    """`sim.rules.scoring.outcome_at_bid`: the longest module of the name exists and defines the next
    part (read, not imported); sim/rules/scoring.py:42: the file has that line."""
    missing = []
    for doc in DOCUMENTS:
        text = doc.read_text()
        for dotted in NAMED_MODULE.findall(text):
            parts = dotted.split(".")
            k = max((k for k in range(1, len(parts) + 1) if _module_file(parts[:k])), default=0)
            if not k or (parts[k:] and parts[k] not in _top_level_names(_module_file(parts[:k]))):
                missing.append(f"{doc.name}: {dotted}")
        for name, line in NAMED_LINE.findall(text):
            if not (ROOT / name).is_file() or int(line) > line_count(ROOT / name):
                missing.append(f"{doc.name}: {name}:{line}")
    assert not missing, missing


def _project_files(*suffixes: str) -> list[Path]:
    return sorted(p for suffix in suffixes for p in ROOT.rglob(f"*{suffix}")
                  if not any(part.startswith(".") for part in p.relative_to(ROOT).parts))


def test_every_section_of_the_docs_the_code_names_exists():
    """Docstrings and comments send the reader to docs/rules.md#winning-and-losing and the like."""
    missing = []
    for file in _project_files(".py"):
        for page, section in NAMED_SECTION.findall(file.read_text()):
            if not (ROOT / "docs" / page).is_file() or (section and section not in anchors(ROOT / "docs" / page)):
                missing.append(f"{file.relative_to(ROOT)}: docs/{page}#{section}")
    assert not missing, missing


def test_no_file_names_a_text_outside_the_repository():
    """The rules and the server's record format are described in docs/rules.md and docs/imports.md; a
    clone holds nothing beside the repository, so no file may send the reader there."""
    outside = re.compile("RULES" + r"\.md|\.\./" + "shared|" + "shared" + "/|" + "ISS" + r"\.md")
    named = [f"{p.relative_to(ROOT)}:{n}" for p in _project_files(".py", ".md")
             for n, line in enumerate(p.read_text().splitlines(), 1) if outside.search(line)]
    assert not named, named


def test_every_name_a_python_example_imports_from_the_toolkit_exists():
    """The Python examples of the documents import from where the names live (the examples that play
    deals are run by the tests of what they show; this one only imports)."""
    written = {name.removesuffix(".py").replace("/", ".") for name in WRITTEN_BY_THE_READER}
    missing = []
    for doc in DOCUMENTS:
        for block in re.findall(r"```python\n(.*?)```", doc.read_text(), re.S):
            for node in ast.walk(ast.parse(block)):
                if (not isinstance(node, ast.ImportFrom) or node.level or node.module in written
                        or node.module.split(".")[0] not in ("sim", "strategies", "analysis")):
                    continue
                module = importlib.import_module(node.module)
                missing += [f"{doc.name}: from {node.module} import {alias.name}" for alias in node.names
                            if not hasattr(module, alias.name)
                            and importlib.util.find_spec(f"{node.module}.{alias.name}") is None]
    assert not missing, missing


def test_the_evaluator_guide_says_which_profile_bids_on_thresholds():
    from strategies import load_profile

    text = " ".join((ROOT / "docs" / "evaluators.md").read_text().split())
    says = "the `threshold` profile (and `cautious`, `aggressive` and `random`, which share its bidding) bids on lower"
    assert says in text
    assert load_profile("threshold").seats[0].bidder.__class__.__name__ == "ThresholdBidder"
    assert load_profile("default").seats[0].bidder.__class__.__name__ != "ThresholdBidder"


def test_the_readme_is_a_guide_and_each_reference_page_stays_short():
    """The README stays a guide of at most 250 lines, and each reference page at most 600: the history
    of experiments goes to docs/notes/, not into the pages."""
    long = {doc.name: n for doc in DOCUMENTS
            if (n := len(doc.read_text().splitlines())) > (250 if doc.name == "README.md" else 600)}
    assert not long, long


def test_every_note_is_dated_and_listed_once_in_the_notes_index():
    notes = ROOT / "docs" / "notes"
    index = (notes / "README.md").read_text()
    for note in sorted(notes.glob("*.md")):
        if note.name == "README.md":
            continue
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md", note.name), note.name
        assert note.read_text().startswith(f"# {note.name[:10]}: "), note.name
        assert index.count(f"]({note.name})") == 1, note.name
    assert "notes/README.md" in (ROOT / "README.md").read_text()


def test_the_parameter_tables_of_the_docs_are_the_strategies_declarations():
    from strategies.parameters import markdown_table
    from strategies.registry import lookup

    found = 0
    for doc in DOCUMENTS:
        for match in re.finditer(r"<!-- parameters: (\w+) (\w+) -->\n((?:\|.*\n?)+)", doc.read_text()):
            role, name, table = match.groups()
            assert table.strip() == markdown_table(lookup(role, name).parameters), f"{doc.name}: {role} {name}"
            found += 1
    assert found >= 9


def test_every_test_a_document_names_exists():
    """docs/rules.md names the tests that hold each rule: `test_a_pass_is_final` and the like."""
    sources = "\n".join(p.read_text() for p in (ROOT / "tests").rglob("test_*.py"))
    defined = set(re.findall(r"^def (test_\w+)\(", sources, re.M))
    missing = [f"{doc.name}: {name}" for doc in DOCUMENTS for name in re.findall(r"`(test_\w+)`", doc.read_text())
               if name not in defined]
    assert not missing, missing


def _benchmark_rows(text: str) -> dict[str, list[str]]:
    """The rows of a table of benchmarks, by the benchmark's name (the first cell's leading `name`): the
    other cells."""
    rows = {}
    for line in text.splitlines():
        if (found := re.match(r"\| `(\w+)`[^|]*\|(.*)\|\s*$", line)):
            rows[found[1]] = [cell.strip() for cell in found[2].split("|")]
    return rows


def test_the_readmes_speed_table_says_what_the_speed_page_says():
    """Speed figures live in docs/speed.md; the README's small table repeats some of its rows, each
    figure and target as the start of the speed page's."""
    page = (ROOT / "docs" / "speed.md").read_text()
    speed = _benchmark_rows(page[page.index("## Today's figures"):].split("\n## ", 1)[0])
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Speed"):readme.index("## Strength")]
    rows = _benchmark_rows(table)
    assert len(rows) >= 5
    differ = [f"{name}: {cells} against {speed.get(name)}" for name, cells in rows.items()
              if name not in speed or any(not theirs.startswith(mine) for mine, theirs in zip(cells, speed[name]))]
    assert not differ, differ
