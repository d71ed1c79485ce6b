/**
 * Checks an API answer against a contract schema in JSON Schema form (`virtual:contract-shapes`,
 * made at build time from `@vpn/contracts` by `scripts/contractShapes.ts`), so the login, the
 * dashboard and the push socket validate what they read without downloading zod (issue 28). It
 * knows exactly the keywords zod's `toJSONSchema` writes for those schemas; the build refuses any
 * other. Like zod, an answer that does not fit is an error, never rendered half-broken.
 */
import SHAPES from 'virtual:contract-shapes';
import type {
  AdminPush,
  Advertisement,
  AvailableServer,
  ClientVersion,
  CurrentUser,
  MessageBody,
  Peer,
  PeerUsage,
  PublicSettings,
  ServiceStatus,
  PushMessage,
  Room,
  RoomLists,
  TokenPair,
} from '@vpn/contracts';
import type { Schema } from './http';

export interface JsonShape {
  type?: string | string[];
  properties?: Record<string, JsonShape>;
  required?: string[];
  additionalProperties?: boolean | JsonShape;
  propertyNames?: JsonShape;
  items?: JsonShape;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonShape[];
  oneOf?: JsonShape[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const patterns = new Map<string, RegExp>();
function regex(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    try {
      re = new RegExp(source, 'u');
    } catch {
      re = new RegExp(source);
    }
    patterns.set(source, re);
  }
  return re;
}

/** The first place `value` does not fit `shape` (a JSON pointer and why), or null when it fits. */
export function mismatch(shape: JsonShape, value: unknown, at = ''): string | null {
  const kind = typeOf(value);
  if (shape.type !== undefined) {
    const types = Array.isArray(shape.type) ? shape.type : [shape.type];
    const fits = types.some(
      (t) => t === kind || (t === 'integer' && kind === 'number' && Number.isInteger(value)),
    );
    if (!fits) return `${at || '/'}: se esperaba ${types.join('|')}, llegó ${kind}`;
  }
  if ('const' in shape && value !== shape.const) return `${at || '/'}: se esperaba ${String(shape.const)}`;
  if (shape.enum && !shape.enum.includes(value)) return `${at || '/'}: valor fuera de la lista`;
  for (const alternatives of [shape.anyOf, shape.oneOf]) {
    if (alternatives && !alternatives.some((s) => mismatch(s, value, at) === null))
      return `${at || '/'}: no encaja con ninguna variante`;
  }
  if (kind === 'number') {
    const n = value as number;
    if (!Number.isFinite(n)) return `${at || '/'}: número no finito`;
    if (
      (shape.minimum !== undefined && n < shape.minimum) ||
      (shape.maximum !== undefined && n > shape.maximum) ||
      (shape.exclusiveMinimum !== undefined && n <= shape.exclusiveMinimum) ||
      (shape.exclusiveMaximum !== undefined && n >= shape.exclusiveMaximum)
    )
      return `${at || '/'}: número fuera de rango`;
  }
  if (kind === 'string') {
    const s = value as string;
    const length = [...s].length;
    if (
      (shape.minLength !== undefined && length < shape.minLength) ||
      (shape.maxLength !== undefined && length > shape.maxLength)
    )
      return `${at || '/'}: longitud fuera de rango`;
    if (shape.pattern !== undefined && !regex(shape.pattern).test(s)) return `${at || '/'}: formato`;
  }
  if (kind === 'array') {
    const list = value as unknown[];
    if (
      (shape.minItems !== undefined && list.length < shape.minItems) ||
      (shape.maxItems !== undefined && list.length > shape.maxItems)
    )
      return `${at || '/'}: número de elementos fuera de rango`;
    if (shape.items) {
      for (let i = 0; i < list.length; i++) {
        const why = mismatch(shape.items, list[i], `${at}/${i}`);
        if (why) return why;
      }
    }
  }
  if (kind === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of shape.required ?? []) {
      if (!(key in record) || record[key] === undefined) return `${at}/${key}: falta`;
    }
    for (const [key, item] of Object.entries(record)) {
      const declared = shape.properties?.[key];
      if (declared) {
        const why = mismatch(declared, item, `${at}/${key}`);
        if (why) return why;
        continue;
      }
      // Keys the schema does not declare: zod strips them from an object, and checks them in a record.
      if (shape.propertyNames) {
        const why = mismatch(shape.propertyNames, key, `${at}/${key}`);
        if (why) return why;
      }
      if (typeof shape.additionalProperties === 'object') {
        const why = mismatch(shape.additionalProperties, item, `${at}/${key}`);
        if (why) return why;
      }
    }
  }
  return null;
}

function checker<T>(shape: object): Schema<T> {
  return {
    safeParse(value) {
      const why = mismatch(shape as JsonShape, value);
      return why === null ? { success: true, data: value as T } : { success: false, error: new Error(why) };
    },
  };
}

export const PublicSettingsShape = checker<PublicSettings>(SHAPES.PublicSettings);
export const ServiceStatusShape = checker<ServiceStatus>(SHAPES.ServiceStatus);
export const TokenPairShape = checker<TokenPair>(SHAPES.TokenPair);
export const MessageBodyShape = checker<MessageBody>(SHAPES.MessageBody);
export const CurrentUserShape = checker<CurrentUser>(SHAPES.CurrentUser);
export const PeerShape = checker<Peer>(SHAPES.Peer);
export const PeerListShape = checker<Peer[]>(SHAPES.PeerList);
export const PeerUsageShape = checker<PeerUsage>(SHAPES.PeerUsage);
export const AvailableServerListShape = checker<AvailableServer[]>(SHAPES.AvailableServerList);
export const AdvertisementListShape = checker<Advertisement[]>(SHAPES.AdvertisementList);
export const ClientVersionShape = checker<ClientVersion>(SHAPES.ClientVersion);
export const RoomShape = checker<Room>(SHAPES.Room);
export const RoomListsShape = checker<RoomLists>(SHAPES.RoomLists);
export const PushMessageShape = checker<PushMessage>(SHAPES.PushMessage);
export const AdminPushShape = checker<AdminPush>(SHAPES.AdminPush);
