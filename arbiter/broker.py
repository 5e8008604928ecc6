"""The embedded broker (no Redis): kombu's filesystem transport, each message written whole before it can
be read.

kombu's own transport creates a message's file under its final name and then writes it: a worker polling
the folder can take the file while it is still empty, fail to decode it and stop ("Unrecoverable error:
JSONDecodeError"). Here the message is written to a hidden file the worker does not look at, then renamed
to its final name in one step (``os.replace`` within one folder).

The transport is named ``arbiterfs`` (``arbiterfs://``, see ``arbiter.env.broker_from_env``).
"""
from __future__ import annotations

import os
import tempfile
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

ALIAS = "arbiterfs"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` on ``queue``: written in full to a hidden file, then renamed into the queue."""
        folder = self.data_folder_out
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        # The workers only read names of the form <stamp>_<uuid>.<queue>.msg: '.partial' is not one.
        fd, partial = tempfile.mkstemp(dir=folder, prefix=".", suffix=".partial")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, os.path.join(folder, name))
        except OSError as exc:
            try:
                os.unlink(partial)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {name!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
    # A folder has no host: without a default host of its own, kombu warns at each connection that "No
    # hostname was supplied" and reverts to localhost, which this transport never uses.
    default_connection_params = {}


TRANSPORT_ALIASES.setdefault(ALIAS, f"{__name__}:Transport")
