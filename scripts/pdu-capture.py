#!/usr/bin/env python3
"""Record the PDUs a PCP client and pmcd exchange.

    scripts/pdu-capture.py OUTFILE COMMAND [ARG...]

Listens on a free port of 127.0.0.1, runs COMMAND with PMCD_PORT set to
that port (so `pminfo -h localhost ...` reaches us), and relays every byte
between the command and the real pmcd (localhost, $PCP_RS_PMCD_PORT or
44321). Each direction's byte stream is cut into PDUs by the length word
of their headers and written to OUTFILE in arrival order, one per line:

    C <hex>    a PDU the client sent
    S <hex>    a PDU pmcd sent

Lines starting with `#` are comments: the first names the command. The
command's own output goes to OUTFILE.out (stdout) and OUTFILE.err.

Test tooling for pcp-rs (crates/pcp-pdu/tests/captures); not part of any
build.
"""
import os
import selectors
import socket
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: pdu-capture.py OUTFILE COMMAND [ARG...]")
    out, cmd = sys.argv[1], sys.argv[2:]
    pmcd_port = int(os.environ.get("PCP_RS_PMCD_PORT", "44321"))
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(4)
    port = lsock.getsockname()[1]
    env = dict(os.environ, PMCD_PORT=str(port))
    with open(out + ".out", "wb") as o, open(out + ".err", "wb") as e:
        child = subprocess.Popen(cmd, env=env, stdout=o, stderr=e)
        records = relay(lsock, child, pmcd_port)
        status = child.wait()
    with open(out, "w") as f:
        f.write("# " + " ".join(cmd) + "\n")
        f.write("# exit status %d\n" % status)
        for who, pdu in records:
            f.write("%s %s\n" % (who, pdu.hex()))


def relay(lsock, child, pmcd_port):
    """Relay every connection until the child exits; return the PDUs."""
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, None)
    records = []
    pending = {}  # socket -> (peer socket, tag, buffered bytes)
    while True:
        if child.poll() is not None and not pending:
            break
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            if s is lsock:
                client, _ = lsock.accept()
                server = socket.create_connection(("localhost", pmcd_port))
                pending[client] = [server, "C", b""]
                pending[server] = [client, "S", b""]
                sel.register(client, selectors.EVENT_READ, None)
                sel.register(server, selectors.EVENT_READ, None)
                continue
            peer, tag, buf = pending[s]
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                for x in (s, peer):
                    sel.unregister(x)
                    x.close()
                    pending.pop(x, None)
                continue
            try:
                peer.sendall(data)
            except OSError:
                pass
            buf += data
            while len(buf) >= 4:
                n = int.from_bytes(buf[:4], "big")
                if n < 12 or len(buf) < n:
                    break
                records.append((tag, buf[:n]))
                buf = buf[n:]
            pending[s][2] = buf
    return records


if __name__ == "__main__":
    main()
