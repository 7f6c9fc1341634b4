"""A bot's match seconds (``Ledger.match_durations``, the bot's web page and API answer: issue
15.8) are read from the index ``match (id, status, duration_s)`` (models.INDEXES, migration 0005)
and never from the match rows: on SQLite the plan says so; on SQLite and PostgreSQL the answer is
what the match rows say, one duration per seat of the bot in a finished match, none for a match
scheduled, running or failed, nor one recorded without a duration."""
from __future__ import annotations

from sqlalchemy import text

from cardarena.ratings import Ledger
from cardarena.ratings import ledger as ledger_module


def test_a_bots_match_seconds_come_from_the_index_alone_and_are_those_of_its_finished_seats(ledger_url):
    led = Ledger(ledger_url())
    for b in ("a", "b", "c"):
        led.add_bot(b)
    for seed, bots, seconds in ((1, ["a", "b", "c"], 1.5), (2, ["b", "c", "a"], 2.5), (3, ["a", "a", "b"], 4.0)):
        m = led.create_match("sixth-card", seed, {}, bots)
        led.record_match(m, scores=[3, 2, 1], places=[1, 2, 3], faults=[0] * 3, forfeited=[False] * 3,
                         steps=[], events=[], duration_s=seconds)
    led.create_match("sixth-card", 4, {}, ["a", "b", "c"])  # scheduled: no seconds yet
    failed = led.create_match("sixth-card", 5, {}, ["a", "b", "c"])
    led.claim_match(failed)
    led.fail_match(failed, "the referee stopped")
    m = led.create_match("sixth-card", 6, {}, ["a", "b", "c"])
    led.record_match(m, scores=[3, 2, 1], places=[1, 2, 3], faults=[0] * 3, forfeited=[False] * 3,
                     steps=[], events=[])
    with led.engine.begin() as conn:  # recorded without its duration (as an old ledger's may be)
        conn.execute(text('UPDATE "match" SET duration_s = NULL WHERE id = :m'), {"m": m})
    assert sorted(led.match_durations("a")) == [1.5, 2.5, 4.0, 4.0]  # two seats of the third match
    assert sorted(led.match_durations("b")) == [1.5, 2.5, 4.0]
    assert led.bot_summaries("c")[1] == led.match_durations("c") and sorted(led.match_durations("c")) == [1.5, 2.5]
    with led.engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            plan = [r[-1] for r in conn.execute(text("EXPLAIN QUERY PLAN " + str(ledger_module._DURATIONS_SQLITE)),
                                                {"bot_id": 1, "finished": "finished"})]
            assert any("COVERING INDEX ix_match_seconds" in step for step in plan), plan
        rows = {b: sorted(d for (d,) in conn.execute(text(
            'SELECT m.duration_s FROM seat JOIN "match" AS m ON m.id = seat.match_id JOIN bot ON bot.id = seat.bot_id'
            " WHERE bot.name = :b AND m.status = 'finished' AND m.duration_s IS NOT NULL"), {"b": b}))
            for b in ("a", "b", "c")}
    assert rows == {b: sorted(led.match_durations(b)) for b in rows}
    led.close()
