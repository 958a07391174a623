// The peer server: boardgame.io hosting tic-tac-toe, its moves kept in memory (its default)
// or in files (FlatFile).
//     node server.js PORT memory|flatfile [DIR]
// Prints "ready" once it listens on 127.0.0.1:PORT.
'use strict';

const { Server, FlatFile } = require('boardgame.io/server');
const { TicTacToe } = require('./tictactoe');

const [port, storage, dir] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
if (!Number.isInteger(port) || !['memory', 'flatfile'].includes(storage)) {
  console.error('usage: node server.js PORT memory|flatfile [DIR]');
  process.exit(2);
}
const options = { games: [TicTacToe], origins: [] };
if (storage === 'flatfile') {
  if (!dir) {
    console.error('flatfile needs a folder');
    process.exit(2);
  }
  options.db = new FlatFile({ dir });
}
const server = Server(options);
// loopback only: the Koa app's listen (made by boardgame.io's socket.io transport) on
// 127.0.0.1 instead of every address
const listen = server.app.listen;
server.app.listen = (at, callback) => listen.call(server.app, at, '127.0.0.1', callback);
server.run({ port, callback: () => console.log('ready') });
