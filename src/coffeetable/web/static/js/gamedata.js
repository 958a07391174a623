// The game data a page draws with (GET /api/games/{game}/data, docs/server.md): the default
// deck's, or a table's own deck's (`?deck=SHA256`), fetched once per deck and page load.

/** A loader of one game's data: `load(deck)` gives the data of `deck` (`{sha256, ...}` as a
 * table names it; null: the default deck), made ready by `prepare`. */
export function deckData(game, prepare) {
  const cache = new Map();
  return {
    load(deck) {
      const sha = (deck && deck.sha256) || "";
      if (!cache.has(sha)) {
        const query = sha ? `?deck=${encodeURIComponent(sha)}` : "";
        const loading = fetch(`/api/games/${game}/data${query}`, { credentials: "same-origin" }).then((response) => {
          if (!response.ok) throw new Error(`no ${game} data for deck ${sha || "default"}`);
          return response.json();
        }).then(prepare);
        loading.catch(() => cache.delete(sha)); // a failed load is tried again next time
        cache.set(sha, loading);
      }
      return cache.get(sha);
    },
  };
}
