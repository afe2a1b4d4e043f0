"""An answer kept in the history reads back as it was given."""

from __future__ import annotations

from reader.answer import Answerer
from reader.records import answer_from_json

HARBOUR = (
    "Harbour records\n\nThe harbour froze in the winter of 1709 and the ships stayed in port "
    "for six weeks. The harbour master kept a log of every ship that waited."
)


def test_an_answer_round_trips_through_its_json_with_every_verification_field(library, make_file):
    library.ingest(make_file("harbour.txt", HARBOUR.encode()))
    answer = Answerer(library, None).ask("How long did the ships stay in port in 1709?")
    assert answer.claims
    read_back = answer_from_json(answer.to_json())
    assert [claim.claim for claim in read_back.claims] == [c.claim for c in answer.claims]
    for before, after in zip(answer.claims, read_back.claims, strict=True):
        assert after.verification.score == round(before.verification.score, 2) > 0
        assert (after.verification.status, after.verification.start, after.verification.end) == (
            before.verification.status,
            before.verification.start,
            before.verification.end,
        )
        assert after.from_evidence == before.from_evidence
