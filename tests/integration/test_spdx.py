# SPDX-License-Identifier: Apache-2.0
"""Every source file carries an SPDX licence header (tools/spdx.py), and the fixer is safe."""

import pytest

from tools import spdx

from .conftest import ROOT


def test_every_source_file_has_an_spdx_header(capsys):
    missing = [p.relative_to(ROOT) for p in spdx.source_files()
               if p.read_text(errors="surrogateescape").strip()
               and not spdx.has_header(p.read_text(errors="surrogateescape"))]
    assert not missing, (f"{len(missing)} files without an SPDX header, e.g. {missing[:5]}; "
                         f"add them with: python tools/spdx.py --fix   (make spdx)")


@pytest.mark.parametrize("name, text, want", [
    ("a.py", '"""Doc."""\nx = 1\n', '# SPDX-License-Identifier: Apache-2.0\n"""Doc."""\nx = 1\n'),
    ("t.py", "# amaranth: UnusedElaboratable=no\nimport x\n",
     "# amaranth: UnusedElaboratable=no\n# SPDX-License-Identifier: Apache-2.0\nimport x\n"),
    ("run", "#!/usr/bin/env bash\nset -e\n",
     "#!/usr/bin/env bash\n# SPDX-License-Identifier: Apache-2.0\nset -e\n"),
    ("k.core", "CAPI=2:\nname: a\n", "CAPI=2:\n# SPDX-License-Identifier: Apache-2.0\nname: a\n"),
    ("d.c", "int x;\n", "/* SPDX-License-Identifier: Apache-2.0 */\nint x;\n"),
    ("m.v", "module m; endmodule", "// SPDX-License-Identifier: Apache-2.0\nmodule m; endmodule"),
    ("Makefile", "all:\n", "# SPDX-License-Identifier: Apache-2.0\nall:\n"),
    ("e.py", "", ""),
])
def test_fix_adds_the_header_after_lines_that_must_stay_first(tmp_path, name, text, want):
    path = tmp_path / name
    path.write_text(text)
    fixed = spdx.add_header(text, spdx.style_of(path))
    assert fixed == want
    assert spdx.add_header(fixed, spdx.style_of(path)) == fixed        # idempotent


def test_markdown_and_data_are_left_alone(tmp_path):
    for name in ("README.md", "x.png", "t.npz", "r.json"):
        (tmp_path / name).write_text("x\n")
        assert spdx.style_of(tmp_path / name) is None


@pytest.mark.parametrize("text", [
    '"""Every file carries ``SPDX-License-Identifier: Apache-2.0`` in its first lines."""\n',
    'x = "SPDX-License-Identifier: Apache-2.0"\n',
    "\n\n\n\n\n# SPDX-License-Identifier: Apache-2.0\n",            # below the first lines
])
def test_the_tag_counts_only_in_a_comment_line_at_the_top(tmp_path, text):
    assert not spdx.has_header(text)
    fixed = spdx.add_header(text, spdx.style_of(tmp_path / "a.py"))
    assert fixed.startswith("# SPDX-License-Identifier: Apache-2.0\n")
    assert spdx.has_header(fixed)


def test_check_lists_a_file_with_the_tag_only_in_its_docstring(tmp_path, capsys):
    import subprocess
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "doc.py").write_text('"""Has ``SPDX-License-Identifier: Apache-2.0``."""\n')
    (tmp_path / "ok.c").write_text("/* SPDX-License-Identifier: Apache-2.0 */\nint x;\n")
    assert spdx.main(["--check", "--root", str(tmp_path)]) == 1
    assert capsys.readouterr().out == "no SPDX header: doc.py\n"
