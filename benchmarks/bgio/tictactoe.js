// The game the peer server hosts: boardgame.io's tic-tac-toe, except that the board clears
// when a game ends (a line or a full board), so one match goes on for the whole run and no
// match has to be set up while moves are timed.
'use strict';

const { INVALID_MOVE } = require('boardgame.io/core');

const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8],
  [0, 3, 6], [1, 4, 7], [2, 5, 8],
  [0, 4, 8], [2, 4, 6],
];

function won(cells) {
  return LINES.some(([a, b, c]) => cells[a] !== null && cells[a] === cells[b] && cells[a] === cells[c]);
}

const TicTacToe = {
  name: 'tic-tac-toe',
  setup: () => ({ cells: Array(9).fill(null), games: 0 }),
  turn: { minMoves: 1, maxMoves: 1 },
  moves: {
    clickCell: ({ G, playerID }, id) => {
      if (!Number.isInteger(id) || id < 0 || id > 8 || G.cells[id] !== null) {
        return INVALID_MOVE;
      }
      G.cells[id] = playerID;
      if (won(G.cells) || G.cells.every((c) => c !== null)) {
        G.cells = Array(9).fill(null);
        G.games += 1;
      }
    },
  },
};

module.exports = { TicTacToe };
