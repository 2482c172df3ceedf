"""Modbus RTU test devices for the bridge's end-to-end tests: pymodbus (an independent
implementation of the protocol) as two meters on one RS-485 bus, and two faulty devices.

Usage:
    python rtu_device.py serial PATH     RTU server on the serial port PATH (a pseudo-terminal
                                         made by socat): units 1 and 2
    python rtu_device.py tcp PORT        RTU frames over TCP on 127.0.0.1:PORT (a gateway in
                                         transparent mode): units 1 and 2
    python rtu_device.py wrong-unit PATH answers every read as the unit after the one asked
    python rtu_device.py bad-crc PATH    answers every read with a corrupted CRC

Unit u's holding registers 0..99 hold u * 1000 + address; the faulty devices answer 7s.
Stops by itself when its standard input closes (the test that started it ended) or after five
minutes, whichever comes first.
"""

import asyncio
import os
import sys
import threading

from modbus_device import LIFETIME_SECONDS, serve_until_parent_ends
from pymodbus import FramerType
from pymodbus.server import ModbusSerialServer, ModbusTcpServer
from pymodbus.simulator import DataType, SimData, SimDevice

def unit(number):
    return SimDevice(
        id=number,
        simdata=(
            [SimData(0, values=[False] * 16, datatype=DataType.BITS)],
            [SimData(0, values=[False] * 16, datatype=DataType.BITS)],
            [SimData(0, values=[number * 1000 + a for a in range(100)], datatype=DataType.REGISTERS)],
            [SimData(0, values=[0] * 100, datatype=DataType.REGISTERS)],
        ),
    )


def crc16(frame):
    """CRC-16/MODBUS (polynomial 0xA001 reflected, initial 0xFFFF), low byte first."""
    crc = 0xFFFF
    for byte in frame:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return bytes([crc & 0xFF, crc >> 8])


def faulty(path, fault):
    """Answers each 8-byte read request on PATH wrongly, as `fault` says."""
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    threading.Timer(LIFETIME_SECONDS, lambda: os._exit(0)).start()
    port = os.open(path, os.O_RDWR | os.O_NOCTTY)
    pending = b""
    while True:
        pending += os.read(port, 256)
        while len(pending) >= 8:
            request, pending = pending[:8], pending[8:]
            unit_id, function, count = request[0], request[1], int.from_bytes(request[4:6], "big")
            if fault == "wrong-unit":
                unit_id = (unit_id + 1) % 248
            body = bytes([unit_id, function, 2 * count]) + b"\x00\x07" * count
            check = crc16(body)
            if fault == "bad-crc":
                check = bytes([check[0] ^ 0xFF, check[1]])
            os.write(port, body + check)


if __name__ == "__main__":
    mode, where = sys.argv[1], sys.argv[2]
    devices = [unit(1), unit(2)]
    if mode == "serial":
        asyncio.run(serve_until_parent_ends(lambda: ModbusSerialServer(devices, framer=FramerType.RTU, port=where, baudrate=9600)))
    elif mode == "tcp":
        asyncio.run(serve_until_parent_ends(lambda: ModbusTcpServer(devices, framer=FramerType.RTU, address=("127.0.0.1", int(where)))))
    else:
        faulty(where, mode)
