"""RSS of a kura binary while 100 connections send only a head declaring a
16 MB PutItem body, and how many it has closed 18 s later.
Usage: python3 bench/attacks/stalled_bodies.py /path/to/kura"""
import socket, sys, time
import kuraproc
bin=sys.argv[1]
p, port = kuraproc.start(bin)
def rss(): return kuraproc.rss(p)
print("before", rss(), "MB")
conns=[]
head=("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\nContent-Length: 16777216\r\n\r\n").encode()
for i in range(100):
    c=socket.create_connection(("127.0.0.1",port)); c.sendall(head); conns.append(c)
time.sleep(3)
print("100 stalled 16 MB heads", rss(), "MB")
time.sleep(15)
closed=0
for c in conns:
    c.settimeout(0.05)
    try:
        if c.recv(1)==b"": closed+=1
    except socket.timeout: pass
    except ConnectionError: closed+=1
print("after 18 s:", rss(), "MB;", closed, "of 100 closed")
p.terminate(); p.wait()
