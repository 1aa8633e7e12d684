"""One lockcheck client played by the real redis-py `Lock`: reads its schedule as one JSON
line on stdin, connects, prints {"event": "ready"}, waits for the line "go <virtual zero in
ns on the monotonic clock>", then does each op at its time and prints what happened as JSON
lines. See harness/README.md for the format."""

import json
import sys
import time

import redis


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def sleep_until(zero_ns, at_ms):
    while True:
        left = (zero_ns + at_ms * 1_000_000 - time.monotonic_ns()) / 1e9
        if left <= 0:
            return
        time.sleep(left)


def run(s, client, zero_ns):
    ttl = None if s["ttl_ms"] is None else s["ttl_ms"] / 1000
    lock = client.lock(s["key"], timeout=ttl, sleep=s.get("retry_ms", 100) / 1000)
    held = False
    skipping = False
    for op in s["ops"]:
        if op["op"] == "acquire":
            skipping = False
        if skipping:
            continue
        sleep_until(zero_ns, op["at_ms"])
        out = {"op": op["op"], "at_ms": op["at_ms"], "step": op["step"]}
        try:
            if op["op"] == "acquire":
                held = out["ok"] = bool(lock.acquire())
                skipping = not held
            elif op["op"] == "extend":
                out["ok"] = bool(lock.extend(op["ms"] / 1000, replace_ttl=op.get("replace", False)))
            elif op["op"] == "release":
                lock.release()
                held = False
                out["ok"] = True
            elif op["op"] == "belief":
                out["holds"] = held
        except redis.exceptions.LockError as e:
            out["ok"] = False
            out["error"] = type(e).__name__
            if op["op"] == "release":
                held = False
        out["t_ms"] = (time.monotonic_ns() - zero_ns) / 1e6
        say(out)
    say({"event": "done", "t_ms": (time.monotonic_ns() - zero_ns) / 1e6})


def main():
    schedule = json.loads(sys.stdin.readline())
    client = redis.Redis(host="127.0.0.1", port=schedule["servers"][0])
    client.ping()
    # Warm the server's script cache, as a running service has it.
    warm = client.lock("lockcheck:warmup", timeout=10)
    warm.acquire()
    warm.extend(1)
    warm.release()
    say({"event": "ready", "client": schedule["client"]})
    line = sys.stdin.readline()
    if line.startswith("go "):
        run(schedule, client, int(line[3:]))


if __name__ == "__main__":
    main()
