// The game log as a player reads it (docs/web.md, "The game log"): moves grouped by turn
// (Coffee Rush: a turn ends with `end`; the meeples' placing is the set-up) or by round (Café:
// a round starts with the draft or the auction), and a player's deliveries to the warehouse in
// a row made one line. Pure functions over the server's log entries {version, seat, action, say}.

const DRAFT = /^(take |bid |bid done$|pass$)/;
const WAREHOUSE = "log.cafe.deliver_warehouse";

/** [{kind: "setup"|"turn"|"round", seat, lines: [{seat, entries}]}] */
export function groupLog(entries, game) {
  const groups = [];
  let prev = null;
  for (const entry of entries) {
    const setup = game === "coffee-rush" && /^place /.test(entry.action);
    let start = !groups.length;
    if (prev && game === "coffee-rush" && !setup && (prev.action === "end" || /^place /.test(prev.action))) start = true;
    if (prev && game === "cafe" && DRAFT.test(entry.action) && !DRAFT.test(prev.action)) start = true;
    if (start) groups.push({ kind: setup ? "setup" : game === "cafe" ? "round" : "turn", seat: entry.seat, lines: [] });
    const lines = groups[groups.length - 1].lines;
    const last = lines[lines.length - 1];
    if (last && entry.say?.key === WAREHOUSE && last.seat === entry.seat && last.entries[0].say?.key === WAREHOUSE) last.entries.push(entry);
    else lines.push({ seat: entry.seat, entries: [entry] });
    prev = entry;
  }
  return groups;
}

/** One sentence for deliveries merged into a line: "delivers 3 cubes to the warehouse: 2
 * yellow and 1 red" (a `say` for say.js; colours in the order they came). */
export function mergedSay(entries) {
  const counts = new Map();
  for (const e of entries) counts.set(e.say.params.colour, (counts.get(e.say.params.colour) || 0) + 1);
  return {
    key: "logview.deliver_many",
    params: {
      n: entries.length,
      parts: [...counts].map(([colour, k]) => ({ key: "log.cafe.cube_part", params: { n: k, colour } })),
    },
  };
}
