/**
 * The one price format of the site and the console (issue 32), "3,00 US$": defined once in the
 * contracts' messages (imports nothing), which the server's Telegram texts use too.
 */
export { formatUsd } from '@vpn/contracts/messages';
