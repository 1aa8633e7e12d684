// One lockcheck client played by the real node-redlock (4 or 5, on ioredis): reads its
// schedule as one JSON line on stdin, connects, prints {"event":"ready"}, waits for the
// line "go <virtual zero in ns on the monotonic clock>", then does each op at its time and
// prints what happened as JSON lines. See harness/README.md for the format.
"use strict";
const readline = require("readline");
const Redis = require("ioredis");

const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const nowNs = () => process.hrtime.bigint();

function makeLock(s, clients) {
  const settings = {
    retryDelay: s.retry_delay_ms,
    retryJitter: s.retry_jitter_ms,
    retryCount: s.retry_count,
  };
  if (s.major === 4) {
    const Redlock = require("redlock4");
    const r = new Redlock(clients, settings);
    r.on("clientError", () => {});
    return {
      acquire: (key) => r.lock(key || s.key, s.ttl_ms),
      extend: (lock, ms) => lock.extend(ms),
      release: (lock) => lock.unlock(),
    };
  }
  const Redlock = require("redlock5").default;
  const r = new Redlock(clients, settings);
  r.on("error", () => {});
  return {
    acquire: (key) => r.acquire([key || s.key], s.ttl_ms),
    extend: (lock, ms) => lock.extend(ms),
    release: (lock) => lock.release(),
  };
}

async function sleepUntil(zero, atMs) {
  for (;;) {
    const left = Number(zero + BigInt(atMs) * 1000000n - nowNs()) / 1e6;
    if (left <= 0) return;
    await new Promise((ok) => setTimeout(ok, Math.max(1, Math.floor(left))));
  }
}

async function run(s, clients, zero) {
  const api = makeLock(s, clients);
  const tMs = () => Number(nowNs() - zero) / 1e6;
  let lock = null;
  let skipping = false;
  for (const op of s.ops) {
    if (op.op === "acquire") skipping = false;
    if (skipping) continue;
    await sleepUntil(zero, op.at_ms);
    const out = { op: op.op, at_ms: op.at_ms, step: op.step };
    try {
      if (op.op === "acquire") {
        lock = await api.acquire();
        out.ok = true;
      } else if (op.op === "extend") {
        lock = await api.extend(lock, op.ms);
        out.ok = true;
      } else if (op.op === "release") {
        await api.release(lock);
        out.ok = true;
      } else if (op.op === "belief") {
        out.holds = lock !== null && lock.expiration > Date.now();
      }
    } catch (e) {
      out.ok = false;
      out.error = String(e && e.message ? e.message : e).split("\n")[0];
      if (op.op === "acquire") skipping = true;
    }
    if (lock !== null && op.op !== "read" && op.op !== "debit") {
      out.validity_ms = lock.expiration - Date.now();
    }
    out.t_ms = tMs();
    say(out);
  }
  say({ event: "done", t_ms: tMs() });
  await Promise.all(clients.map((c) => c.quit().catch(() => {})));
}

const lines = readline.createInterface({ input: process.stdin });
let schedule = null;
let clients = null;
lines.on("line", async (line) => {
  if (schedule === null) {
    schedule = JSON.parse(line);
    clients = schedule.servers.map((port) => new Redis({ port, host: "127.0.0.1" }));
    await Promise.all(clients.map((c) => new Promise((ok) => c.once("ready", ok))));
    // Warm the servers' script caches, as a running service has them: the first call of
    // a script on a server otherwise costs a NOSCRIPT round trip.
    const api = makeLock(schedule, clients);
    const warm = await api.acquire("lockcheck:warmup");
    await api.release(await api.extend(warm, schedule.ttl_ms));
    say({ event: "ready", client: schedule.client });
  } else if (line.startsWith("go ")) {
    lines.close();
    try {
      await run(schedule, clients, BigInt(line.slice(3).trim()));
    } catch (e) {
      say({ event: "error", error: String(e) });
      process.exitCode = 1;
    }
  }
});
