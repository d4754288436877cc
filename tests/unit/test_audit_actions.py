"""Every audit action the server records has the manager's Spanish label, and no label names a gone action."""

from __future__ import annotations

import re
from pathlib import Path

from controlplane.domain.audit.actions import AuditAction

LABELS = Path(__file__).parents[2] / "webui" / "src" / "features" / "manager" / "audit-actions.ts"


def _labelled() -> dict[str, str]:
    text = LABELS.read_text(encoding="utf-8")
    block = text[text.index("AUDIT_ACTION_LABELS") : text.index("};", text.index("AUDIT_ACTION_LABELS"))]
    return dict(re.findall(r"^\s*'([a-z_.]+)':\s*'([^']+)',", block, flags=re.MULTILINE))


def test_every_action_has_a_label_and_every_label_an_action() -> None:
    labelled = _labelled()
    assert set(labelled) == {a.value for a in AuditAction}


def test_labels_are_spanish_sentences_not_codes() -> None:
    for action, label in _labelled().items():
        assert "." not in label and "_" not in label and label[0].isupper(), (action, label)
