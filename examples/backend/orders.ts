/**
 * The example shop's business data: an in-memory order table per user. It stands for the
 * customer's own database, which the voice Agent reaches only through the backend's tools.
 */

/** Where an order is. */
export type OrderStatus = 'packed' | 'out_for_delivery' | 'delivered';

/** One order as the tools return it. */
export interface Order {
  orderId: string;
  items: string[];
  totalEur: number;
  status: OrderStatus;
  address: string;
  /** Set once a courier was dispatched. */
  courier?: { name: string; etaMinutes: number };
}

const SEED: Record<string, Order[]> = {
  ada: [
    {
      orderId: 'A-1001',
      items: ['2 x espresso beans 1 kg', '1 x milk frother'],
      totalEur: 64.5,
      status: 'packed',
      address: '12 Analytical Street',
    },
    {
      orderId: 'A-1002',
      items: ['1 x pour-over kettle'],
      totalEur: 39,
      status: 'delivered',
      address: '12 Analytical Street',
    },
  ],
  grace: [
    {
      orderId: 'G-2001',
      items: ['3 x decaf beans 500 g'],
      totalEur: 27,
      status: 'packed',
      address: '7 Compiler Lane',
    },
  ],
};

/**
 * The order table. Lookups are scoped to the signed-in user: an order of someone else is
 * reported as not found, so the Agent can never read or dispatch it.
 *
 * @example
 * ```ts
 * const orders = new OrderBook();
 * orders.find('ada', 'A-1001')?.status; // 'packed'
 * ```
 */
export class OrderBook {
  readonly #orders = new Map<string, Order[]>();

  constructor(seed: Record<string, Order[]> = SEED) {
    for (const [userId, orders] of Object.entries(seed)) {
      this.#orders.set(
        userId,
        orders.map((order) => structuredClone(order)),
      );
    }
  }

  /** The user's orders (copies). */
  list(userId: string): Order[] {
    return (this.#orders.get(userId) ?? []).map((order) => structuredClone(order));
  }

  /** One of the user's orders (a copy), matched without regard to case. */
  find(userId: string, orderId: string): Order | undefined {
    const wanted = orderId.trim().toUpperCase();
    const order = this.#orders.get(userId)?.find((candidate) => candidate.orderId === wanted);
    return order ? structuredClone(order) : undefined;
  }

  /** Records a dispatched courier; the order is then out for delivery. */
  markDispatched(userId: string, orderId: string, courier: Order['courier']): void {
    const order = this.#orders.get(userId)?.find((candidate) => candidate.orderId === orderId);
    if (!order) return;
    order.status = 'out_for_delivery';
    order.courier = courier;
  }
}
