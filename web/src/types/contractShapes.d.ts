/** `virtual:contract-shapes` (web/scripts/contractShapes.ts): the contracts' answers as JSON Schema. */
declare module 'virtual:contract-shapes' {
  // An ambient module cannot `import type` at the top of this file (that would make it a module
  // augmentation); the names come from the one list the plugin converts.
  // eslint-disable-next-line @typescript-eslint/consistent-type-imports
  type Name = (typeof import('../../scripts/contractShapes').SHAPE_NAMES)[number];
  const shapes: Record<Name, object>;
  export default shapes;
}
