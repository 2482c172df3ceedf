"""A Modbus TCP test device for the bridge's end-to-end test, served by pymodbus (an independent
implementation of the protocol).

Usage: python modbus_device.py PORT HOLDING_JSON [INPUT_JSON]

- Listens on 127.0.0.1:PORT as unit id 1.
- Holding registers 0..99 start with the JSON list HOLDING_JSON (padded with zeros); input
  registers 0..99 hold 100 + address, except those INPUT_JSON sets (an object of address to
  value: `{"72": 17562, "73": 20480}` plays an SDM120's import energy, 1234.5 kWh as a float32
  high word first); coils 0..15 start off.
- Stops by itself when its standard input closes (the test that started it ended) or after
  five minutes, whichever comes first.
"""

import asyncio
import json
import sys
import threading

from pymodbus.server import ModbusTcpServer
from pymodbus.simulator import DataType, SimData, SimDevice

LIFETIME_SECONDS = 300


def device(holding, inputs=None):
    holding = (holding + [0] * 100)[:100]
    input_registers = [100 + a for a in range(100)]
    for address, value in (inputs or {}).items():
        input_registers[int(address)] = value
    return SimDevice(
        id=1,
        simdata=(
            [SimData(0, values=[False] * 16, datatype=DataType.BITS)],
            [SimData(0, values=[True] * 16, datatype=DataType.BITS)],
            [SimData(0, values=holding, datatype=DataType.REGISTERS)],
            [SimData(0, values=input_registers, datatype=DataType.REGISTERS)],
        ),
    )


async def serve_until_parent_ends(make):
    """Runs the pymodbus server `make()` builds (inside the event loop, as pymodbus wants) until
    standard input closes or LIFETIME_SECONDS pass. Also used by rtu_device.py."""
    server = make()
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    # Standard input closing means the parent test is gone.
    threading.Thread(
        target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stop.cancel)),
        daemon=True,
    ).start()
    serving = asyncio.create_task(server.serve_forever())
    try:
        await asyncio.wait_for(stop, LIFETIME_SECONDS)
    except (asyncio.CancelledError, asyncio.TimeoutError):
        pass
    await server.shutdown()
    serving.cancel()


if __name__ == "__main__":
    port, holding = int(sys.argv[1]), json.loads(sys.argv[2])
    inputs = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    asyncio.run(
        serve_until_parent_ends(
            lambda: ModbusTcpServer(device(holding, inputs), address=("127.0.0.1", port))
        )
    )
