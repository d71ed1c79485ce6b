/**
 * The web calls a room (Salas) a room. The contracts still use the spec's wire word, `party`
 * (`Party`, `PartyLists`, `MAX_OWNED_PARTIES`…); this module is the one place the web names them,
 * so the contracts' own rename touches one web file. Wire keys (`owned_partys`, `party_id`…) stay.
 */
export { MAX_OWNED_PARTIES as MAX_OWNED_ROOMS, Party as Room } from '@vpn/contracts';
export type {
  AdminParty as AdminRoom,
  AdminPartyDetail as AdminRoomDetail,
  PartyLists as RoomLists,
  PartyPeer as RoomPeer,
} from '@vpn/contracts';
