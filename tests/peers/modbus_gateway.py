"""A Modbus TCP gateway for the bridge's end-to-end test: pymodbus (an independent
implementation of the protocol) serving units 1, 2 and 3 (as rtu_device.py's: unit u's holding
registers 0..99 hold u * 1000 + address), behind a front that takes one client connection at a
time, as many gateways do: while one is open, every other is closed at once.

Usage: python modbus_gateway.py PORT COUNTS_FILE

- The front listens on 127.0.0.1:PORT; pymodbus on a free port of its own behind it.
- COUNTS_FILE is rewritten (atomically) at every connection: {"accepted": A, "refused": R}.
- Stops by itself when its standard input closes (the test that started it ended) or after
  five minutes, whichever comes first.
"""

import asyncio
import json
import os
import socket
import sys

from modbus_device import serve_until_parent_ends
from pymodbus.server import ModbusTcpServer
from rtu_device import unit


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(port, counts_path):
    inner = free_port()
    counts = {"accepted": 0, "refused": 0}
    open_clients = []

    def save():
        with open(counts_path + ".tmp", "w") as f:
            json.dump(counts, f)
        os.replace(counts_path + ".tmp", counts_path)

    async def pipe(reader, writer):
        try:
            while data := await reader.read(4096):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    async def client(reader, writer):
        if open_clients:
            counts["refused"] += 1
            save()
            writer.close()
            return
        open_clients.append(writer)
        counts["accepted"] += 1
        save()
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", inner)
            await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))
        except (ConnectionError, OSError):
            writer.close()
        finally:
            open_clients.remove(writer)

    def make():
        # Called inside the running loop (serve_until_parent_ends): the front starts beside
        # the pymodbus server.
        asyncio.get_running_loop().create_task(asyncio.start_server(client, "127.0.0.1", port))
        return ModbusTcpServer([unit(1), unit(2), unit(3)], address=("127.0.0.1", inner))

    save()
    asyncio.run(serve_until_parent_ends(make))


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
