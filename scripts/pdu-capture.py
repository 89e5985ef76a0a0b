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

$PCP_RS_MANGLE makes some of pmcd's replies malformed but well framed,
to see what the client does with them: `TYPE,N,OFFSET,WORD` (several
joined by `;`) sets the 32-bit word at byte OFFSET of the Nth PDU (from
1) of TYPE (e.g. 0x7009) that pmcd sends to WORD. pmcd's PDUs are then
relayed whole, and recorded as the client received them.

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
    mangle = [
        [int(x, 0) for x in m.split(",")]
        for m in os.environ.get("PCP_RS_MANGLE", "").split(";")
        if m
    ]
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(4)
    port = lsock.getsockname()[1]
    env = dict(os.environ, PMCD_PORT=str(port))
    with open(out + ".out", "wb") as o, open(out + ".err", "wb") as e:
        child = subprocess.Popen(cmd, env=env, stdout=o, stderr=e)
        records = relay(lsock, child, pmcd_port, mangle)
        status = child.wait()
    with open(out, "w") as f:
        f.write("# " + " ".join(cmd) + "\n")
        f.write("# exit status %d\n" % status)
        for who, pdu in records:
            f.write("%s %s\n" % (who, pdu.hex()))


def mangled(pdu, mangle, seen):
    """pdu, with the words `mangle` asks for in it changed."""
    ty = int.from_bytes(pdu[4:8], "big")
    seen[ty] = seen.get(ty, 0) + 1
    for mty, n, off, word in mangle:
        if mty == ty and n == seen[ty]:
            pdu = pdu[:off] + word.to_bytes(4, "big", signed=True) + pdu[off + 4:]
    return pdu


def relay(lsock, child, pmcd_port, mangle=()):
    """Relay every connection until the child exits; return the PDUs."""
    seen = {}  # PDU type -> how many pmcd has sent
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
            whole = mangle and tag == "S"
            if not whole:
                try:
                    peer.sendall(data)
                except OSError:
                    pass
            buf += data
            while len(buf) >= 4:
                n = int.from_bytes(buf[:4], "big")
                if n < 12 or len(buf) < n:
                    break
                pdu = buf[:n]
                if whole:
                    pdu = mangled(pdu, mangle, seen)
                    try:
                        peer.sendall(pdu)
                    except OSError:
                        pass
                records.append((tag, pdu))
                buf = buf[n:]
            pending[s][2] = buf
    return records


if __name__ == "__main__":
    main()
