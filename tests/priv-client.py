#!/usr/bin/python3
# tests/priv-client.py - a client of mmci-priv's channel (daemon/priv.h)
# that plays a compromised service user: run under `mmci-priv --`, it
# sends the requests a parser taken over could send, one case a line:
#
#   priv-client.py CASE...
#
# and prints "CASE: ok" or "CASE: refused: REASON" for each, from the
# parent's replies. The structs mirror priv.h through ctypes, which lays
# them out as the C compiler does; case "host" is the well-formed
# request that shows the mirror is right.
import array
import ctypes as C
import os
import socket
import sys
import time

MAGIC = 0x6d6d7031
CHANNEL, HOST, BOOT, STATE, RESIZE, DESTROY = 1, 2, 3, 4, 5, 6


class Boot(C.Structure):
    _fields_ = [("name", C.c_char * 65), ("arch", C.c_char * 16),
                ("cpu_model", C.c_char * 32), ("cmdline", C.c_char * 2049),
                ("vcpus", C.c_uint32), ("kvm", C.c_uint32),
                ("icount", C.c_uint32), ("pin", C.c_uint32),
                ("has_initrd", C.c_uint32), ("backing", C.c_uint32),
                ("profile", C.c_uint32),
                ("nvdimm_label_kib", C.c_uint32), ("ram_mib", C.c_uint64),
                ("nvdimm_mib", C.c_uint64),
                ("virtio_mem_max_mib", C.c_uint64)]


class Req(C.Structure):
    _fields_ = [("magic", C.c_uint32), ("type", C.c_uint32),
                ("boot", C.c_uint32), ("mib", C.c_uint64), ("b", Boot)]


class Host(C.Structure):
    _fields_ = [("qemu", C.c_char * 32), ("libvirt", C.c_char * 32),
                ("arch", C.c_char * 32), ("cpu_model", C.c_char * 64),
                ("hostname", C.c_char * 128), ("arm64_why", C.c_char * 256),
                ("kvm", C.c_uint32), ("arm64", C.c_uint32),
                ("cores", C.c_uint32), ("mmci_domains", C.c_uint32),
                ("mem_mib", C.c_uint64)]


class State(C.Structure):
    _fields_ = [("gone", C.c_int32), ("stopped", C.c_int32),
                ("stop_detail", C.c_int32), ("crashed", C.c_int32),
                ("end_s", C.c_double)]


class Reply(C.Structure):
    _fields_ = [("magic", C.c_uint32), ("type", C.c_uint32),
                ("status", C.c_int32), ("error", C.c_char * 512),
                ("boot", C.c_uint32), ("host", Host), ("state", State),
                ("xml", C.c_char * 16384)]


ROOT = socket.socket(fileno=int(os.environ["MMCI_PRIV_FD"]))


def call(sock, data, fds=()):
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
            array.array("i", fds))] if fds else []
    sock.sendmsg([data], anc)
    msg, anc, _, _ = sock.recvmsg(C.sizeof(Reply) + 16,
                                  socket.CMSG_SPACE(16))
    got = []
    for level, kind, body in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            a = array.array("i")
            a.frombytes(body[:len(body) - len(body) % a.itemsize])
            got.extend(a)
    if len(msg) != C.sizeof(Reply):
        return None, got, "a reply of %d bytes" % len(msg)
    return Reply.from_buffer_copy(msg), got, None


def channel():
    r, fds, _ = call(ROOT, bytes(Req(magic=MAGIC, type=CHANNEL)))
    if not r or r.status or len(fds) != 1:
        return None, (r.error.decode() if r else "no channel")
    return socket.socket(fileno=fds[0]), None


def boot_req(**kw):
    b = Boot(name=b"mmci-hostile", arch=b"x86_64", vcpus=1, ram_mib=512)
    for k, v in kw.items():
        setattr(b, k, v)
    return Req(magic=MAGIC, type=BOOT, b=b)


def outcome(r, err):
    if err:
        return "refused: " + err
    if r.status:
        return "refused: " + r.error.decode(errors="replace")
    return "ok"


def run(case):
    ch, why = channel()
    if not ch:
        return "refused: " + why
    kernel = os.open("/proc/self/exe", os.O_RDONLY)
    try:
        if case == "host":
            r, _, err = call(ch, bytes(Req(magic=MAGIC, type=HOST)))
            res = outcome(r, err)
            return res + (" qemu " + r.host.qemu.decode()
                          if res == "ok" else "")
        if case == "short":
            r, _, err = call(ch, b"\x31\x70\x6d\x6d" + b"\0" * 6)
        elif case == "magic":
            r, _, err = call(ch, bytes(Req(magic=0x12345678, type=HOST)))
        elif case == "unknown-type":
            r, _, err = call(ch, bytes(Req(magic=MAGIC, type=99)))
        elif case == "fd-on-host":
            r, _, err = call(ch, bytes(Req(magic=MAGIC, type=HOST)),
                             [kernel])
        elif case == "name-traversal":
            r, _, err = call(ch, bytes(boot_req(name=b"../../etc/x")),
                             [kernel])
        elif case == "name-unterminated":
            req = bytearray(bytes(boot_req()))
            off = Req.b.offset + Boot.name.offset
            req[off:off + 65] = b"m" * 65
            r, _, err = call(ch, bytes(req), [kernel])
        elif case == "cmdline-escape":
            r, _, err = call(ch, bytes(boot_req(cmdline=b"quiet \x1b[2J")),
                             [kernel])
        elif case == "option-arch":
            r, _, err = call(ch, bytes(boot_req(arch=b"--help")), [kernel])
        elif case == "profile-kvm":
            r, _, err = call(ch, bytes(boot_req(profile=1, kvm=1)), [kernel])
        elif case == "ram-huge":
            r, _, err = call(ch, bytes(boot_req(ram_mib=1 << 40)), [kernel])
        elif case == "no-kernel":
            r, _, err = call(ch, bytes(boot_req()))
        elif case == "kernel-directory":
            d = os.open("/etc", os.O_RDONLY)
            r, _, err = call(ch, bytes(boot_req()), [d])
            os.close(d)
        elif case == "kernel-device":
            d = os.open("/dev/zero", os.O_RDONLY)
            r, _, err = call(ch, bytes(boot_req()), [d])
            os.close(d)
        elif case == "state-not-mine":
            r, _, err = call(ch, bytes(Req(magic=MAGIC, type=STATE, boot=1)))
        elif case == "destroy-not-mine":
            r, _, err = call(ch, bytes(Req(magic=MAGIC, type=DESTROY,
                                           boot=1)))
        elif case == "resize-not-mine":
            r, _, err = call(ch, bytes(Req(magic=MAGIC, type=RESIZE,
                                           boot=1, mib=2)))
        elif case.startswith("cross-channel="):
            # a guest of this channel, named by another channel
            k = os.open(case.split("=", 1)[1], os.O_RDONLY)
            r, fds, err = call(ch, bytes(boot_req(
                name=b"mmci-hostile-cross", cmdline=b"console=ttyS0",
                ram_mib=256)), [k])
            os.close(k)
            for fd in fds:
                os.close(fd)
            if err or r.status:
                return "boot " + outcome(r, err)
            other, why = channel()
            res = []
            for t in (STATE, RESIZE, DESTROY):
                r2, _, e2 = call(other, bytes(Req(magic=MAGIC, type=t,
                                                  boot=r.boot, mib=2)))
                res.append(outcome(r2, e2))
            other.close()
            r3, _, e3 = call(ch, bytes(Req(magic=MAGIC, type=DESTROY,
                                           boot=r.boot)))
            return "guest %d: %s; its own channel destroys it: %s" % (
                r.boot, "; ".join(res), outcome(r3, e3))
        elif case == "channels":
            kept = []
            for _ in range(70):
                c, why = channel()
                if not c:
                    for k in kept:
                        k.close()
                    time.sleep(0.5)  # until the parent saw them close
                    return "refused: after %d channels: %s" % (
                        len(kept), why)
                kept.append(c)
            return "ok"
        else:
            return "unknown case"
        return outcome(r, err)
    finally:
        os.close(kernel)
        ch.close()


for case in sys.argv[1:]:
    print("%s: %s" % (case, run(case)), flush=True)
