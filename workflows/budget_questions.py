"""The question a person gets when a run uses up its step budget.

A model that loops (routes back and forth, re-plans forever) reaches ``maxSteps``. This product
exists to ask a person then, not to fail: unless the start input says ``failOnStepLimit``, the
workflow asks a HUMAN_REVIEW question typed as the next agent's own interrupt, whether the run
gets another budget of steps or stops. It goes to a person, never to the reviewing model (which may
be the looping one). Choosing "stop" fails the run with StepLimitExceeded naming that decision;
any other answer (words alone too) grants the steps, and the words reach the next agent as
guidance. The recommendation, which an unattended ``USE_RECOMMENDED`` timeout takes, is to stop.
Pure functions.
"""

from __future__ import annotations

from agent_interrupts.models.interrupts import (
    CUSTOM_OPTION_TEXT,
    ChoiceOption,
    InterruptRequestBase,
    InterruptResolution,
    OptionKey,
    StructuredChoice,
)
from agent_interrupts.models.team import Team
from agent_interrupts.workflows.question_types import empty_fields

BUDGET_CHOICE_ID = "step-budget"
STOP = OptionKey.B


def budget_question(agent: str, steps_taken: int, granted: int, team: Team) -> InterruptRequestBase:
    """``agent``'s typed HUMAN_REVIEW question: ``granted`` more steps, or stop the run."""
    cls = team.questions[agent]
    return cls.model_validate(
        {
            **empty_fields(cls),
            "type": "HUMAN_REVIEW",
            "reason": f"The run took {steps_taken} agent steps without finishing, its step "
            f"budget (maxSteps); it may be looping, so it asks you instead of failing.",
            "choices": [
                StructuredChoice(
                    choice_id=BUDGET_CHOICE_ID,
                    question=f"Should the run go on with {agent}?",
                    context="Read the run's history (agents status) to see whether it makes "
                    "progress; your words in CUSTOM are given to the next agent as guidance.",
                    options=[
                        ChoiceOption(
                            key=OptionKey.A,
                            description=f"Give the run {granted} more agent steps; {agent} goes on",
                        ),
                        ChoiceOption(
                            key=STOP,
                            description="Stop the run here: it fails with StepLimitExceeded",
                        ),
                        ChoiceOption(key=OptionKey.CUSTOM, description=CUSTOM_OPTION_TEXT),
                    ],
                    recommended=STOP,
                ).to_wire()
            ],
            "confirmationItems": [],
            "contextForDecision": f"{steps_taken} agent steps so far; the next one is "
            f"{agent}. A run that repeats the same agents with the same results is looping.",
        }
    )


def stops_the_run(resolution: InterruptResolution | None) -> bool:
    """Whether the answer to a budget question chose to stop (words alone never stop a run)."""
    return resolution is not None and resolution.selected_choices.get(BUDGET_CHOICE_ID) is STOP
