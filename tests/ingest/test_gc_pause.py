import gc

import pytest

from reader.ingest.gc_pause import collection_paused, collection_resumed


@pytest.fixture(autouse=True)
def _collection_on_after():
    yield
    gc.enable()


def test_pause_holds_collection_off_and_turns_it_back_on():
    assert gc.isenabled()
    with collection_paused():
        assert not gc.isenabled()
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_pause_turns_back_on_after_an_error():
    with pytest.raises(ValueError), collection_paused():
        raise ValueError
    assert gc.isenabled()


def test_pause_leaves_collection_off_when_it_found_it_off():
    gc.disable()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_resumed_collects_inside_a_pause_only():
    with collection_paused():
        with collection_resumed():
            assert gc.isenabled()
        assert not gc.isenabled()
    gc.disable()  # off, but not by a pause: left off
    with collection_resumed():
        assert not gc.isenabled()
