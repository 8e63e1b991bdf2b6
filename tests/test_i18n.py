"""What looplab says to a learner, in English or Chinese; catalogs that cannot go stale."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

import looplab
from looplab import Limits, ScriptedModel, call, fake_client, i18n, run_agent, say, tool

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "src" / "looplab" / "locale"
PO = LOCALE / "zh_CN" / "LC_MESSAGES" / "looplab.po"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "Message": None, "worded": None,
            "Stop": (2,)}  # as `make translations` reads them


@pytest.fixture(autouse=True)
def _back_to_default() -> object:
    yield
    looplab.set_language(None)


def source_messages() -> set[str]:
    """Every message marked with `_()` or `ngettext()` in the package, as Babel sees it."""
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(ROOT / "src" / "looplab"), method_map=[("**.py", "python")], keywords=KEYWORDS
    ):
        found.update([message] if isinstance(message, str) else message)
    return found


def catalog() -> dict[str, str]:
    with PO.open("rb") as f:
        po = read_po(f)
    # a plural entry answers for its singular and its plural msgid
    return {str(i): m for m in po if m.id for i in ([m.id] if isinstance(m.id, str) else m.id)}


def test_every_message_in_the_code_has_a_chinese_translation() -> None:
    po = catalog()
    missing = sorted(m for m in source_messages() if m not in po or not po[m].string)
    assert not missing, f"messages without a zh_CN translation (run `make translations`): {missing}"
    fuzzy = sorted(m for m in source_messages() if m in po and po[m].fuzzy)
    assert not fuzzy, f"fuzzy translations to check: {fuzzy}"


def test_translations_keep_every_placeholder() -> None:
    for message, entry in catalog().items():
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for text in strings:
            if text:
                assert set(re.findall(r"\{[^}]*\}", text)) == set(
                    re.findall(r"\{[^}]*\}", message)
                ), message


def test_the_compiled_catalog_is_the_po_file_compiled() -> None:
    with PO.open("rb") as f:
        po = read_po(f)
    compiled = io.BytesIO()
    write_mo(compiled, po)
    assert PO.with_suffix(".mo").read_bytes() == compiled.getvalue(), (
        "looplab.mo is older than looplab.po: run `make translations`"
    )


def test_the_run_summary_speaks_the_chosen_language() -> None:
    model = ScriptedModel([call("noop"), call("noop"), say("done")])

    @tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    result = run_agent(fake_client(model), "t", tools=[noop], limits=Limits(max_turns=2))
    assert str(result) == "stopped: max_turns (2 of 2 turns used)"
    assert looplab.set_language("zh-CN") == "zh-CN"
    assert str(result) == "已停止：max_turns（已用 2 轮，上限 2 轮）"  # the status stays as is
    looplab.set_language("en")
    assert str(result) == "stopped: max_turns (2 of 2 turns used)"


@pytest.mark.parametrize(
    ("tag", "expected"),
    [("zh-CN", "zh-CN"), ("zh_CN.UTF-8", "zh-CN"), ("zh", "zh-CN"), ("ZH-cn", "zh-CN"),
     ("en_US.UTF-8", "en"), ("C", "en"), ("POSIX", "en"), ("fr_FR", None)],
)
def test_language_tags_are_read_the_usual_ways(tag: str, expected: str | None) -> None:
    assert i18n.normalise(tag) == expected


def test_an_unknown_language_is_refused_with_what_to_do() -> None:
    with pytest.raises(ValueError, match=r'set_language\("zh-CN"\)'):
        looplab.set_language("fr")


LANGUAGE_VARIABLES = ("LOOPLAB_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.mark.parametrize(
    ("env", "expected"),
    [({"LOOPLAB_LANG": "zh-CN"}, "zh-CN"),
     ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
     ({"LANGUAGE": "fr:zh_CN", "LANG": "en_US.UTF-8"}, "zh-CN"),
     ({"LOOPLAB_LANG": "en", "LANG": "zh_CN.UTF-8"}, "en"),
     ({"LOOPLAB_LANG": "klingon"}, "en"),
     ({}, "en")],
)
def test_the_default_comes_from_looplab_lang_then_the_locale(
    env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in LANGUAGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert i18n.current() == expected


@pytest.mark.slow  # seconds
def test_a_fresh_process_reads_the_default_when_it_speaks_not_at_import() -> None:
    clean = {k: v for k, v in os.environ.items() if k not in LANGUAGE_VARIABLES}
    code = ("import os, looplab.i18n as i; a = i.current(); "
            "os.environ['LOOPLAB_LANG'] = 'en'; print(a, i.current())")
    out = subprocess.run([sys.executable, "-c", code], env={**clean, "LANG": "zh_CN.UTF-8"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["zh-CN", "en"]


def test_a_message_compares_in_english_and_shows_in_the_current_language() -> None:
    m = i18n.Message("{used} of {limit} turns used", used=3, limit=3)
    looplab.set_language("zh-CN")
    assert m == "3 of 3 turns used" and f"[{m}]" == "[已用 3 轮，上限 3 轮]"
    assert m + "!" == "3 of 3 turns used!"  # joined text stays English (what the model reads)


def test_history_hints_and_warnings_speak_chinese_and_the_apis_texts_stay_english() -> None:
    history = [
        {"role": "user", "content": "run the tests"},
        {"role": "tool", "content": "3 passed"},
        {"role": "user", "content": "and?"},
    ]
    english = str(looplab.check_history(history))
    looplab.set_language("zh-CN")
    found = looplab.check_history(history)
    chinese = str(found)
    api_text = "messages.1.role: Input should be 'user' or 'assistant'"
    assert api_text in english and api_text in chinese  # the API's words, in both
    assert "hint: There is no `tool` role" in english
    assert "提示：没有 `tool` 这个角色" in chinese
    assert "hint" not in chinese
    assert "<th>提示</th>" in found._repr_html_()
    with pytest.raises(looplab.HistoryError, match=r"API 会用 400 拒绝这段历史（1 个错误）"):
        looplab.assert_valid(history[:2])
    looplab.set_language("en")
    assert str(found) == english  # the same violations, read again in English


def test_the_offline_line_and_an_exhausted_script_speak_chinese(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LOOPLAB_LIVE", raising=False)
    looplab.set_language("zh-CN")
    looplab.client(ScriptedModel([say("好")]))
    offline = "looplab：使用离线的假 API（设置 LOOPLAB_LIVE=1 才会连线上 API）。\n"
    assert capsys.readouterr().out == offline
    client = fake_client(ScriptedModel([say("好")]), max_retries=0)
    first = [{"role": "user", "content": "一"}]
    client.messages.create(model=looplab.MODEL, max_tokens=10, messages=first)
    model2 = ScriptedModel([say("好"), say("再见")])
    with pytest.raises(AssertionError, match="脚本一共 2 步，还有 1 步没用上"):
        fake_client(model2).messages.create(
            model=looplab.MODEL, max_tokens=10, messages=[{"role": "user", "content": "一"}])
        model2.assert_complete()
    with pytest.raises(Exception, match="第 2 次请求没有对应的脚本步骤"):
        client.messages.create(model=looplab.MODEL, max_tokens=10,
                               messages=[{"role": "user", "content": "二"}])


def test_a_finished_run_has_no_detail_in_either_language() -> None:
    model = ScriptedModel([say("Done.")])
    result = run_agent(fake_client(model), "Go.")
    try:
        for language in ("en", "zh-CN"):
            looplab.set_language(language)
            assert str(result.detail) == "" and "Content-Type" not in str(result)
    finally:
        looplab.set_language(None)


def test_a_message_whose_field_holds_braces_copies_and_pickles_whole() -> None:
    import copy
    import pickle

    m = i18n.Message("{call}: identical call made {n} times", call='run_tests {"module":"x"}', n=3)
    for again in (copy.deepcopy(m), copy.copy(m), pickle.loads(pickle.dumps(m))):
        assert again == m and isinstance(again, i18n.Message)
        assert (again.template, again.fields) == (m.template, m.fields)
