/**
 * The two tools the example backend gives the Agent: `lookup_order`, an ordinary blocking
 * tool answering from the order table, and `dispatch_courier`, a long-running dispatch
 * (`runReply: false`, `cancellable: true`) that reports progress and whose spoken result
 * comes later through `requestReply`.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApplicationError,
  type ApplicationToolSpec,
  type ToolCall,
  type ToolContext,
} from '../../backend-sdk/src/index.ts';
import type { User } from './auth.ts';
import type { Order, OrderBook } from './orders.ts';

const ORDER_ID = { type: 'string', description: 'The order number, e.g. A-1001' };

/**
 * The tools as declared at the session start.
 *
 * @example
 * ```ts
 * await startApplicationSession(http, { ..., application: { instructions, tools: TOOLS } });
 * ```
 */
export const TOOLS: ApplicationToolSpec[] = [
  {
    name: 'lookup_order',
    description: "Looks up one of the signed-in customer's orders: items, total, status, courier.",
    parameters: {
      type: 'object',
      properties: { orderId: ORDER_ID },
      required: ['orderId'],
      additionalProperties: false,
    },
  },
  {
    name: 'dispatch_courier',
    description:
      'Dispatches a courier for a packed order. Takes a while: say that it is on its way; ' +
      'the result is announced separately once a courier has it.',
    parameters: {
      type: 'object',
      properties: { orderId: ORDER_ID },
      required: ['orderId'],
      additionalProperties: false,
    },
    // The user interrupting the Agent ("no, stop!") cancels a dispatch still searching.
    cancellable: true,
    // A second dispatch while one runs would send two couriers: the model asks first.
    onDuplicate: 'confirm',
    // No reply when the result arrives: the backend decides when to speak it (requestReply).
    runReply: false,
  },
];

/** The courier a finished dispatch found. */
export interface Dispatch {
  orderId: string;
  courier: string;
  etaMinutes: number;
}

/** What a tool call needs from the conversation it runs in. */
export interface ToolScope {
  user: User;
  orders: OrderBook;
  /** How long a dispatch takes from its first progress to its result. */
  dispatchMs: number;
  /** Called once a dispatch finished (after its result is returned to the library). */
  onDispatched(dispatch: Dispatch): void;
}

const COURIERS = ['Sam', 'Noor', 'Lena', 'Tomás'];

/**
 * Runs one tool call for the signed-in user. Returns the result the worker adds to the
 * context; an unknown order is a normal result (`found: false`) the model can talk about.
 *
 * @example
 * ```ts
 * onTool: (call, context) => runTool(call, context, scope)
 * ```
 */
export async function runTool(call: ToolCall, context: ToolContext, scope: ToolScope) {
  const orderId = orderIdOf(call);
  switch (call.name) {
    case 'lookup_order': {
      const order = scope.orders.find(scope.user.id, orderId);
      return order ? { found: true, order: describe(order) } : { found: false, orderId };
    }
    case 'dispatch_courier':
      return dispatchCourier(orderId, context, scope);
    default:
      throw new ApplicationError({ code: 'unknown_tool', message: `no tool named ${call.name}` });
  }
}

async function dispatchCourier(orderId: string, context: ToolContext, scope: ToolScope) {
  const order = scope.orders.find(scope.user.id, orderId);
  if (!order) return { dispatched: false, reason: 'order_not_found', orderId };
  if (order.status !== 'packed') {
    return { dispatched: false, reason: `order_${order.status}`, orderId: order.orderId };
  }
  // The first progress makes the call non-blocking: the conversation goes on meanwhile.
  await context.progress({ stage: 'searching_courier', orderId: order.orderId });
  const courier = COURIERS[Math.floor(Math.random() * COURIERS.length)] ?? 'Sam';
  const etaMinutes = 10 + Math.floor(Math.random() * 20);
  // Cancellation (the user interrupted, or the backend cancelled) aborts the wait and
  // leaves the order untouched; whatever the handler would send afterwards is dropped.
  await sleep(scope.dispatchMs / 2, undefined, { signal: context.signal });
  await context.progress({ stage: 'courier_assigned', courier, orderId: order.orderId });
  await sleep(scope.dispatchMs / 2, undefined, { signal: context.signal });
  scope.orders.markDispatched(scope.user.id, order.orderId, { name: courier, etaMinutes });
  const dispatch = { orderId: order.orderId, courier, etaMinutes };
  // After this returns the library sends the result; the announcement follows it.
  setImmediate(() => scope.onDispatched(dispatch));
  return { dispatched: true, ...dispatch };
}

function orderIdOf(call: ToolCall): string {
  const args = call.arguments;
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    const orderId = args.orderId;
    if (typeof orderId === 'string' && orderId.trim() !== '') return orderId;
  }
  throw new ApplicationError({
    code: 'invalid_request',
    message: 'the arguments need an orderId string',
  });
}

function describe(order: Order) {
  return {
    orderId: order.orderId,
    items: order.items,
    totalEur: order.totalEur,
    status: order.status,
    address: order.address,
    courier: order.courier ?? null,
  };
}
