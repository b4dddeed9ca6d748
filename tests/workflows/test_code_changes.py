"""The workflow's pure decisions about code changes: merge order, answers to a
conflict, findings checked against diffs, claims replaced by git's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_interrupts.models.code import (
    AskedConflict,
    CodeState,
    ConflictChoice,
    ConflictSide,
    Diff,
    MergeOutcome,
    TestRun,
    TicketBranch,
    TicketChange,
    TicketCommit,
)
from agent_interrupts.models.ids import ref_component
from agent_interrupts.models.interrupts import InterruptResolution
from agent_interrupts.models.results import CommitInfo, TestOutcome, VerificationStatus
from agent_interrupts.models.team_build import build_team
from agent_interrupts.models.team_files import load_team_file
from agent_interrupts.teams.software.results import TicketAgentResult
from agent_interrupts.workflows.code_changes import (
    code_commit,
    commit_message,
    conflict_question,
    finding_is_in,
    in_form_of,
    merge_order,
    remember_ticket,
    take_answer,
    ticket_names,
    with_commit,
)

DIFF = Diff(
    stat=" calc/ops.py | 2 +-",
    files=["calc/ops.py", "big.txt"],
    text="diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n"
    "@@ -1,3 +1,3 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
    "@@ -20,2 +20,4 @@\n x\n+y\n",
    cut="files not shown: big.txt",
)


def _branch(ticket: str, *deps: str) -> TicketBranch:
    return TicketBranch(
        ticket_id=ticket, branch=f"agents/r/{ticket}", base="b", head=ticket, dependencies=[*deps]
    )


def test_tickets_merge_in_dependency_order_and_otherwise_as_done() -> None:
    done = [_branch("T-3", "T-1"), _branch("T-2"), _branch("T-1"), _branch("T-4", "T-9")]
    assert [t.ticket_id for t in merge_order(done)] == ["T-2", "T-1", "T-3", "T-4"]
    cycle = [_branch("A", "B"), _branch("B", "A")]
    assert [t.ticket_id for t in merge_order(cycle)] == ["A", "B"]


def test_a_ticket_done_again_keeps_its_place_with_its_new_head() -> None:
    code = CodeState(tickets=[_branch("T-1"), _branch("T-2")])
    tickets = remember_ticket(code.tickets, _branch("T-1").model_copy(update={"head": "new"}))
    assert [(t.ticket_id, t.head) for t in tickets] == [("T-1", "new"), ("T-2", "T-2")]


@pytest.mark.parametrize(
    ("finding", "valid"),
    [
        ({"path": "calc/ops.py", "startLine": 2, "endLine": 2}, True),
        ({"path": "calc/ops.py", "startLine": 21, "endLine": 30}, True),
        ({"path": "calc/ops.py", "startLine": 8, "endLine": 12}, False),  # between the hunks
        ({"path": "calc/other.py", "startLine": 1, "endLine": 1}, False),  # not changed
        ({"path": "big.txt", "startLine": 500, "endLine": 501}, True),  # its diff was cut away
        ({"path": "calc/ops.py", "startLine": None, "endLine": None}, False),
    ],
)
def test_review_findings_must_touch_the_diffs_it_read(
    finding: dict[str, object], valid: bool
) -> None:
    change = TicketChange(ticket_id="T-1", branch="b", head="h", verification="", diff=DIFF)
    assert finding_is_in([change], finding) is valid


def test_an_answer_to_a_conflict_becomes_file_resolutions() -> None:
    code = CodeState(asked=AskedConflict(ticket_id="T-2", paths=["a.py", "b.py", "c.py"]))
    answer = InterruptResolution.model_validate(
        {
            "selectedChoices": {"file-1": "B", "file-2": "CUSTOM", "file-3": "A"},
            "customInputs": {"file-2": "resolved"},
        }
    )
    code = take_answer(code, answer)
    (a, b, c) = code.resolutions["T-2"]
    assert (a.choice, b.choice, b.content, c.choice) == (
        ConflictChoice.THEIRS,
        ConflictChoice.CONTENT,
        "resolved\n",
        ConflictChoice.OURS,
    )
    assert code.asked is None and len(code.resolved) == 3


def test_declining_the_merge_leaves_the_ticket_out() -> None:
    code = CodeState(
        tickets=[_branch("T-1"), _branch("T-2")],
        asked=AskedConflict(ticket_id="T-2", paths=["a.py"]),
    )
    code = take_answer(
        code, InterruptResolution.model_validate({"confirmations": {"merge-0": False}})
    )
    assert [t.ticket_id for t in code.tickets] == ["T-1"] and not code.resolutions


def test_claims_about_files_tests_and_the_commit_come_from_git() -> None:
    claimed = TicketAgentResult(
        ticket_id="T-9",
        implementation_summary="did it",
        files_modified=["everything.py"],
        test_results=[TestOutcome(name="all", passed=True)],
        commit=CommitInfo(message="fix add", files=["everything.py"]),
        verification_status=VerificationStatus.VERIFIED,
    )
    tests = TestRun(
        command="pytest",
        exit_code=1,
        outcomes=[TestOutcome(name="t::test_add", passed=False)],
        failed=1,
    )
    done = TicketCommit(
        ticket_id="T-1",
        node_id="n",
        branch="agents/r/T-1",
        base_commit="b",
        sha="abc",
        files=["calc/ops.py"],
        diff=DIFF,
        tests=tests,
    )
    real = with_commit(claimed, done)
    assert real.ticket_id == "T-1" and real.files_modified == ["calc/ops.py"]
    assert real.commit.sha == "abc" and real.commit.files == ["calc/ops.py"]
    assert real.commit.message == "fix add"
    assert real.verification_status is VerificationStatus.FAILED
    assert [t.name for t in real.test_results] == ["t::test_add"]


def test_the_last_choice_of_a_long_conflict_covers_the_files_not_shown() -> None:
    code = CodeState(asked=AskedConflict(ticket_id="T-2", paths=["a.py", "b.py"], more=9))
    answer = InterruptResolution.model_validate({"selectedChoices": {"file-2": "B"}})
    code = take_answer(code, answer)
    assert [(r.path, r.choice) for r in code.resolutions["T-2"]] == [
        ("a.py", ConflictChoice.OURS),
        ("b.py", ConflictChoice.THEIRS),
        ("*", ConflictChoice.THEIRS),
    ]


def test_a_models_ticket_ids_never_make_two_tickets_share_a_branch() -> None:
    keys = [f"ticket-agent-{n}" for n in range(1, 8)]
    requests = [
        {"ticketId": "T-1"},
        {"ticketId": "T-1"},
        {"ticketId": ""},
        {"ticketId": "../../etc/T 1"},
        {"ticketId": "z" * 500},
        {"ticketId": "z" * 500 + "other"},
        {},
    ]
    names = ticket_names(requests, keys)
    assert names[:4] == ["T-1", "T-1-2", "ticket-agent-3", "../../etc/T 1"]
    assert len(names[4]) == 100 and names[5] == "z" * 90 + "-2"
    assert names[6] == "ticket-agent-7"
    refs = [ref_component(n) for n in names]
    assert len(set(refs)) == len(refs), refs
    assert all("/" not in r and not r.startswith(".") for r in refs)
    assert ticket_names(requests, keys) == names, "the same each round"
    taken = [{"ticketId": "T-1-2"}, {"ticketId": "T-1"}, {"ticketId": "T-1"}]
    assert ticket_names(taken, keys[:3]) == ["T-1-2", "T-1", "T-1-3"]


# -- a declared team's code-writing agent and merger -------------------------------------------

CODE_TEAM = Path(__file__).resolve().parents[2] / "docs" / "examples" / "code-team"


def test_a_declared_agents_commit_is_what_git_and_the_tests_found() -> None:
    done = TicketCommit(
        ticket_id="T-1",
        node_id="n",
        branch="agents/r/T-1",
        base_commit="b",
        sha="abc",
        files=["calc/ops.py"],
        diff=DIFF,
        tests=TestRun(command="pytest", exit_code=0, passed=2),
    )
    commit = code_commit(done)
    assert (commit.branch, commit.sha, commit.files) == ("agents/r/T-1", "abc", ["calc/ops.py"])
    assert commit.diff_stat == DIFF.stat
    assert commit.verification_status is VerificationStatus.VERIFIED
    assert commit.verification == "VERIFIED: 2 passed, 0 failed (pytest)"
    untested = code_commit(done.model_copy(update={"tests": None}))
    assert untested.verification_status is VerificationStatus.PARTIAL
    assert untested.verification == "not run"


def test_a_declared_agents_commit_subject_is_its_message_else_its_summary() -> None:
    assert commit_message({"commitMessage": "fix add", "summary": "why"}, "C", "T-1") == (
        "fix add",
        "why",
    )
    assert commit_message({"summary": " did it "}, "C", "T-1") == ("did it", "did it")
    assert commit_message({"summary": 3}, "CODER", "T-1") == ("CODER T-1", "")


def test_a_conflict_is_asked_in_a_declared_mergers_own_form() -> None:
    team = build_team(load_team_file(CODE_TEAM))
    outcome = MergeOutcome(
        run_branch="agents/r",
        repository="/r",
        head="h",
        merged=["T-001"],
        conflict_ticket="T-002",
        conflicts=[
            ConflictSide(path="calc/ops.py", diff_summary="1 line", ours="a + b", theirs="b + a")
        ],
        conflict_count=1,
    )
    asked = conflict_question(outcome, "out-1", ["up-1"])
    model = team.node("MERGER").output_model
    routing = model.model_validate(in_form_of(model, asked))
    question = routing.interrupt_request
    assert question is not None and question.origin == "MERGER"  # type: ignore[attr-defined]
    assert [c.choice_id for c in question.choices] == ["file-1"]
    assert [c.confirmation_id for c in question.confirmation_items] == ["merge-0"]
    assert question.reason == asked["interruptRequest"]["reason"]
    assert question.risk == "LOW"  # type: ignore[attr-defined]  # its own fields: blank
    result = routing.result  # type: ignore[attr-defined]
    assert (result.result_id, result.upstream_context_ids) == ("out-1", ["up-1"])
    assert result.summary == "T-002 conflicts with the run branch in 1 file(s)"  # shared field
