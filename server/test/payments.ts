/**
 * The customer's side of a purchase, shared by the payment tests (QvaPay, Remesita, refunds, client
 * invoices): a signed-in buyer, the purchase call, the payment-result page and the peer list, each
 * through the public API. `app` is read at call time (the tests build theirs in beforeAll).
 */
import { bearer, createCustomer, login, type TestApp } from './helpers.ts';

export function customerPayments(app: () => TestApp) {
  const inject = (method: 'GET' | 'PUT', url: string, access: string, payload?: object) =>
    app().app.inject({ method, url, headers: bearer(access), ...(payload ? { payload } : {}) });
  return {
    /** A new customer, signed in. */
    async buyer() {
      const c = await createCustomer(app());
      const { access } = await login(app(), c.username, c.password);
      return { ...c, access };
    },
    /** `PUT /api/client/invoices`. */
    put: (access: string, payload: object) => inject('PUT', '/api/client/invoices', access, payload),
    /** The invoice as the payment-result page reads it. */
    shown: async (access: string, id: string) =>
      (await inject('GET', `/api/client/invoices/${id}`, access)).json(),
    myPeers: async (access: string) => (await inject('GET', '/api/client/accounts/peers', access)).json(),
  };
}
