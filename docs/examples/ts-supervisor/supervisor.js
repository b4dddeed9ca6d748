#!/usr/bin/env node
// @ts-check
// A supervisor in TypeScript's SDK: sends an InterruptRequestEvent into a running
// OrchestratorWorkflow through its validated update `send_interrupt_event` (or, with --signal,
// the `interrupt_request_event` signal), encrypting what it sends with the workers' keys.
//
//   AGENTS_ENCRYPTION_KEYS='k1:...' TEMPORAL_ADDRESS=127.0.0.1:7233 \
//     node supervisor.js WORKFLOW_ID '{"sourceAgentType": "PLANNING_ORCHESTRATOR", "reason": "..."}'
//
// Prints the acknowledgement as JSON (the update), or `signalled` (the signal); a rejected event
// or an error: one line on stderr, exit status 1.
'use strict';

const crypto = require('node:crypto');
const { Client, Connection } = require('@temporalio/client');
const { EncryptionCodec, keysFromEnv } = require('./codec');

async function main() {
  const args = process.argv.slice(2);
  const signal = args.includes('--signal');
  const [workflowId, eventJson] = args.filter((a) => a !== '--signal');
  if (!workflowId || !eventJson) {
    throw new Error("usage: node supervisor.js [--signal] WORKFLOW_ID EVENT_JSON (the event's JSON, camelCase keys)");
  }
  const event = { eventId: crypto.randomUUID(), ...JSON.parse(eventJson) };
  const keys = keysFromEnv();
  const apiKey = process.env.TEMPORAL_API_KEY || undefined;
  const connection = await Connection.connect({
    address: process.env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
    ...(apiKey ? { apiKey, tls: true } : {}),
  });
  try {
    const client = new Client({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE || 'default',
      dataConverter: keys ? { payloadCodecs: [new EncryptionCodec(keys)] } : undefined,
    });
    const handle = client.workflow.getHandle(workflowId);
    if (signal) {
      await handle.signal('interrupt_request_event', event);
      console.log('signalled');
    } else {
      console.log(JSON.stringify(await handle.executeUpdate('send_interrupt_event', { args: [event] })));
    }
  } finally {
    await connection.close();
  }
}

main().catch((/** @type {any} */ err) => {
  console.error(`error: ${(err.cause?.message ?? err.message).split('\n')[0]}`);
  process.exit(1);
});
