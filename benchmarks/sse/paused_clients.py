#!/usr/bin/env python3
"""Opens N server-sent-event streams and then stops reading them (the caller pauses this process with
SIGSTOP): the client of issue 30 that "stops reading but stays connected". Prints one line when every
stream has its response headers, then waits; the kernel keeps accepting the server's writes into this
process's receive buffers until they fill."""
import socket
import sys

host, port, path, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
streams = []
for _ in range(count):
    s = socket.create_connection((host, port))
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
    streams.append(s)
for s in streams:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            sys.exit("a stream closed before its headers")
        head += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        sys.exit("not 200: " + head.decode(errors="replace"))
print(f"{count} streams open", flush=True)
sys.stdin.read()  # blocks until the caller closes stdin or kills this process
