"""The embedded broker: a message is readable only once written whole, and goes through a real kombu
connection (``arbiterfs://``) to a consumer."""
import base64
import json
import os

from kombu import Connection

from arbiter import broker


def _options(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (tmp_path / "control").mkdir()
    return {"data_folder_in": str(folder), "data_folder_out": str(folder),
            "processed_folder": str(tmp_path), "control_folder": str(tmp_path / "control"),
            "store_processed": False}, folder


def test_a_message_appears_in_the_queue_only_once_written_whole(tmp_path, monkeypatch):
    options, folder = _options(tmp_path)
    seen = []
    real_replace = os.replace

    def replace(source, target):
        # At the rename: nothing is in the queue yet, and the hidden file already holds the whole message.
        seen.append(([n for n in os.listdir(folder) if n.endswith(".msg")], open(source, "rb").read()))
        real_replace(source, target)

    monkeypatch.setattr(broker.os, "replace", replace)
    with Connection(f"{broker.ALIAS}://", transport_options=options) as connection:
        queue = connection.SimpleQueue("rounds")
        queue.put({"round": 3, "rack": "AEINRST"})
        (in_queue, written), = seen
        assert in_queue == []
        body = json.loads(base64.b64decode(json.loads(written)["body"]))
        assert body == {"round": 3, "rack": "AEINRST"}
        names = os.listdir(folder)
        assert len(names) == 1 and names[0].endswith(".rounds.msg") and not names[0].startswith(".")
        message = queue.get(timeout=1)
        assert message.payload == {"round": 3, "rack": "AEINRST"}
        message.ack()
        queue.close()
    assert [n for n in os.listdir(folder) if n.endswith(".msg")] == []


def test_a_hidden_partial_file_is_never_read_as_a_message(tmp_path):
    options, folder = _options(tmp_path)
    (folder / ".abc.partial").write_bytes(b"")  # a message being written
    with Connection(f"{broker.ALIAS}://", transport_options=options) as connection:
        # Another queue than the test above: kombu keeps the queues it has bound in memory, per transport.
        queue = connection.SimpleQueue("closes")
        queue.put({"round": 4})
        assert queue.get(timeout=1).payload == {"round": 4}
        queue.close()
    assert (folder / ".abc.partial").exists()
