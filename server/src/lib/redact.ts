/**
 * Hides secrets that travel in URLs before a URL reaches a log: the websocket's `token` query
 * parameter, the mirror link's token (`/api/mirror/<token>`, the one secret URL by design) and the
 * secret of a payment notification URL (`/api/payments/remesita/ipn/<invoice>/<secret>`).
 */
export function redactUrl(url: string): string {
  return url
    .replace(/([?&]token=)[^&#]*/g, '$1[redactado]')
    .replace(/^(\/api\/mirror\/)[^/?#]+/, '$1[redactado]')
    .replace(/^(\/api\/payments\/[a-z]+\/ipn\/[^/?#]*\/)[^/?#]+/, '$1[redactado]');
}
