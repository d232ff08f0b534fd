// Starts kinesalite on 127.0.0.1 only (its own cli.js listens on every
// interface): node serve.js PORT PATH
var port = Number(process.argv[2]), path = process.argv[3]
var server = require('kinesalite')({path: path, createStreamMs: 50, deleteStreamMs: 50, updateStreamMs: 50, shardLimit: 100000})
server.listen(port, '127.0.0.1', function() {
  console.log('kinesalite listening at http://127.0.0.1:%d', server.address().port)
})
