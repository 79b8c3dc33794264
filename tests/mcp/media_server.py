"""A stdio MCP server whose `chime` tool answers with a real WAV clip (half a second of a 440 Hz tone,
8 kHz mono 16-bit), for the inspector's audio block (run as a script). server-everything as installed
here (2026.8.31) has images but no audio."""

import base64
import io
import math
import struct
import wave

import mcp.types as types
from mcp.server.mcpserver import MCPServer

server = MCPServer("media")
RATE, SECONDS = 8000, 0.5


def chime_wav() -> bytes:
    """The clip the tool returns, made with the stdlib's wave module."""
    frames = b"".join(struct.pack("<h", int(12000 * math.sin(2 * math.pi * 440 * n / RATE)))
                      for n in range(int(RATE * SECONDS)))
    out = io.BytesIO()
    with wave.open(out, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(RATE)
        clip.writeframes(frames)
    return out.getvalue()


@server.tool(description="A short chime, as audio.")
def chime() -> types.AudioContent:
    return types.AudioContent(type="audio", data=base64.b64encode(chime_wav()).decode(), mime_type="audio/wav")


if __name__ == "__main__":
    server.run("stdio")
