/**
 * The inline script of a pre-rendered public page (issue 32, point 8): it keeps the taps and form
 * sends that come before the page's boot script (`src/boot.ts`, a file of its own) has arrived. On a
 * slow link that file comes a round trip or more after the first paint, and a tap on "Abrir menú" or
 * "Mostrar contraseña" in between did nothing. From the document's first bytes this records every
 * click and every submit (a submit is held: sent as a plain form it would put a password in the URL)
 * in `window.__vpnTaps`; the boot script takes the list, serves or replays each once, and sets it
 * to null, which stops the recording.
 *
 * It runs inline, so the Content-Security-Policy allows exactly this text by its hash:
 * `TAP_CAPTURE_HASH` in `server/src/plugins/security.ts`. Change a byte here and put the new hash
 * there (`node -e` with `crypto.createHash('sha256').update(TEXT).digest('base64')`): the browser
 * tests fail otherwise (`e2e/firstTap.e2e.test.ts` needs the script to run, `e2e/csp.e2e.test.ts`
 * sees the refusal).
 */

export const TAP_CAPTURE =
  '{let t=self.__vpnTaps=[];for(let k of["click","submit"])addEventListener(k,e=>{' +
  'self.__vpnTaps&&(e.type=="submit"&&e.preventDefault(),t.push(e))},!0)}';
