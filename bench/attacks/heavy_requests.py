"""Peak RSS of a kura binary while N (default 8) PutItems of 12.3 MB, each
with 500,000 ExpressionAttributeValues, arrive at once, and RSS 10 s after.
Usage: python3 bench/attacks/heavy_requests.py /path/to/kura [N]"""
import sys, time, threading, urllib.request
import kuraproc
bin=sys.argv[1]; n=int(sys.argv[2]) if len(sys.argv)>2 else 8
p, port = kuraproc.start(bin)
def rss(): return kuraproc.rss(p)
def call(op, body):
    req=urllib.request.Request("http://127.0.0.1:%d/"%port, data=body, method="POST", headers={"X-Amz-Target":"DynamoDB_20120810."+op,"Content-Type":"application/x-amz-json-1.0"})
    try:
        with urllib.request.urlopen(req, timeout=300) as r: return r.status
    except urllib.error.HTTPError as e: return e.code
call("CreateTable", b'{"TableName":"heavy","BillingMode":"PAY_PER_REQUEST","AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}]}')
body=('{"TableName":"heavy","Item":{"pk":{"S":"k"}},"ExpressionAttributeValues":{'+",".join('":v%d":{"S":"abcdef"}'%i for i in range(500000))+"}}").encode()
before=rss(); peak=[before]; done=[False]
def sample():
    while not done[0]:
        peak[0]=max(peak[0],rss()); time.sleep(0.05)
th=threading.Thread(target=sample); th.start()
t0=time.time()
ws=[threading.Thread(target=call,args=("PutItem",body)) for _ in range(n)]
[w.start() for w in ws]; [w.join() for w in ws]
el=time.time()-t0
done[0]=True; th.join()
time.sleep(10)
print("%s: %d x %.1f MB PutItem: RSS %d MB before, peak %d MB, %d MB 10 s after; %.1f s" % (bin, n, len(body)/2**20, before, peak[0], rss(), el))
p.terminate(); p.wait()
