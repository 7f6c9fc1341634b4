#!/usr/bin/env node
// A bot that plays any cardarena game by choosing a legal action at random.
//
// Needs the helper's packages once: `make examples` in the clone (it runs npm ci in clients/node)
// Run it against a referee:  CARDARENA_ADDRESS=127.0.0.1:50051 CARDARENA_TOKEN=... node examples/node/random_bot.js
// or let the CLI start it:   cardarena play --game sixth-card --bot me="node examples/node/random_bot.js" --bot r="python examples/python/random_bot.py"
'use strict';
const { run } = require('../../clients/node');

run((decision) => Math.floor(Math.random() * decision.actions.length));
