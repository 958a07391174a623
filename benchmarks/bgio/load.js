// The peer's load client: TABLES tic-tac-toe matches on a boardgame.io server, two players
// each, over socket.io (WebSocket transport), like one client process of benchmarks/load.py.
//     node load.js URL TABLES FIRST SECONDS INTERVAL
// Sets every match up (both players synced), prints "ready", waits for "go" on stdin, then
// plays for SECONDS: closed loop (INTERVAL 0: the next move as soon as the update came) or
// paced (each table one move every INTERVAL seconds, from a random phase, never in a burst to
// catch up). Latency is from sending a move to receiving the update that carries it. Prints
// one JSON line with the counts, the latencies (seconds) and its CPU time, then waits for
// "close" on stdin before it disconnects (so that no socket closes while others are timed).
'use strict';

const readline = require('readline');
const { io } = require('socket.io-client');

const [url, tables, first, seconds, interval] = [
  process.argv[2],
  Number(process.argv[3]),
  Number(process.argv[4]),
  Number(process.argv[5]),
  Number(process.argv[6]),
];
const RUN = process.env.BGIO_RUN || String(process.pid);
const lines = readline.createInterface({ input: process.stdin });
const waiting = [];
const received = [];
lines.on('line', (line) => {
  const next = waiting.shift();
  if (next) next(line.trim());
  else received.push(line.trim());
});
const nextLine = () =>
  received.length ? Promise.resolve(received.shift()) : new Promise((r) => waiting.push(r));
const now = () => Number(process.hrtime.bigint()) / 1e9;
const sleep = (s) => new Promise((resolve) => setTimeout(resolve, Math.max(0, s * 1000)));

// A seeded generator per table (mulberry32), as load.py seeds one per table.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One player's socket: its latest state, and a way to wait for a later one. */
function player(matchID, playerID) {
  const socket = io(`${url}/tic-tac-toe`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
  });
  const me = { socket, state: null, waiters: [] };
  const got = (id, state) => {
    if (id !== matchID || !state) return;
    if (me.state === null || state._stateID > me.state._stateID) me.state = state;
    me.waiters = me.waiters.filter(([at, resolve]) => {
      if (me.state._stateID >= at) {
        resolve(me.state);
        return false;
      }
      return true;
    });
  };
  socket.on('sync', (id, info) => got(id, info && info.state));
  socket.on('update', (id, state) => got(id, state));
  socket.on('connect', () => socket.emit('sync', matchID, playerID, undefined, 2));
  me.at = (stateID) =>
    me.state !== null && me.state._stateID >= stateID
      ? Promise.resolve(me.state)
      : new Promise((resolve) => me.waiters.push([stateID, resolve]));
  return me;
}

async function setUp(k) {
  const matchID = `bench-${RUN}-${first + k}`;
  // the first player makes the match (boardgame.io creates it on the first sync)
  const a = player(matchID, '0');
  await a.at(0);
  const b = player(matchID, '1');
  await b.at(0);
  return { matchID, players: [a, b], random: rng(first + k + 1) };
}

async function play(table, clock, out) {
  const { matchID, players, random } = table;
  let due = clock.start + (clock.interval ? clock.interval * random() : 0);
  while (now() < clock.stopAt) {
    const state = players[0].state._stateID >= players[1].state._stateID
      ? players[0].state
      : players[1].state;
    const seat = Number(state.ctx.currentPlayer);
    const mover = players[seat];
    await mover.at(state._stateID); // the mover has seen the latest state
    if (clock.interval) {
      const wait = due - now();
      if (wait > 0) {
        await sleep(wait);
        if (now() >= clock.stopAt) return;
      }
      due = Math.max(due + clock.interval, now());
    }
    const cells = state.G.cells;
    const free = [];
    for (let i = 0; i < 9; i += 1) if (cells[i] === null) free.push(i);
    const cell = free[Math.floor(random() * free.length)];
    const action = {
      type: 'MAKE_MOVE',
      payload: { type: 'clickCell', args: [cell], playerID: String(seat) },
    };
    const sent = now();
    mover.socket.emit('update', action, state._stateID, matchID, String(seat));
    await mover.at(state._stateID + 1);
    out.latency.push(now() - sent);
    out.moves += 1;
    // the other player sees the move too
    await players[1 - seat].at(state._stateID + 1);
  }
}

async function main() {
  const out = { moves: 0, errors: 0, games: 0, latency: [] };
  const limit = 20; // set up a few at a time, as load.py does
  const ready = new Array(tables);
  let nextTable = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tables) }, async () => {
      while (nextTable < tables) {
        const k = nextTable;
        nextTable += 1;
        ready[k] = await setUp(k);
      }
    }),
  );
  console.log('ready');
  if ((await nextLine()) !== 'go') process.exit(1);
  const cpu = process.cpuUsage();
  const start = now();
  const clock = { start, stopAt: start + seconds, interval };
  await Promise.all(ready.map((table) => play(table, clock, out)));
  out.seconds = now() - start;
  const used = process.cpuUsage(cpu);
  out.cpu = (used.user + used.system) / 1e6;
  out.cpu_system = used.system / 1e6;
  out.games = ready.reduce((n, t) => n + Math.max(...t.players.map((p) => p.state.G.games)), 0);
  console.log(JSON.stringify(out));
  await nextLine(); // "close": every client has stopped
  for (const table of ready) for (const p of table.players) p.socket.close();
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
