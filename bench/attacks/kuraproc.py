"""Start a kura binary on a free loopback port and read its RSS (for the
attack scripts beside this file)."""
import socket, subprocess, time


def start(binary):
    """The process and its port, once it has had time to listen."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    p = subprocess.Popen([binary, "--in-memory", "--listen", "127.0.0.1:%d" % port, "--log-level", "warn"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    return p, port


def rss(p):
    """Resident memory in MB (Linux /proc)."""
    for line in open("/proc/%d/status" % p.pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
