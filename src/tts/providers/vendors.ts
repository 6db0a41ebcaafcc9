import { elevenLabsVendor } from './elevenlabs/descriptor.ts';
import { fishAudioVendor } from './fishaudio/descriptor.ts';
import type { ConfiguredVendor, VendorDescriptor } from './vendor-descriptor.ts';

/**
 * The upstream speech vendors of this build, one descriptor each (its folder's
 * `descriptor.ts`). Registering a vendor is one line here; everything that names vendors
 * (route providers, provider accounts, configuration, pricing, synthesis, cloning, catalog
 * import) follows this list.
 */
export const VENDORS = [elevenLabsVendor, fishAudioVendor] as const;

/** A registered vendor's provider name. */
export type VendorKind = (typeof VENDORS)[number]['kind'];

const [firstVendor, ...otherVendors] = VENDORS;

/** Registered provider names, in list order. */
export const VENDOR_KINDS: readonly [VendorKind, ...VendorKind[]] = [
  firstVendor.kind,
  ...otherVendors.map((descriptor) => descriptor.kind),
];

type UnionToIntersection<U> = (U extends unknown ? (arg: U) => void : never) extends (
  arg: infer I,
) => void
  ? I
  : never;

/** Every registered vendor's environment variables (spread into `configSchema`). */
export const vendorConfigShape = Object.assign(
  {},
  ...VENDORS.map((descriptor) => descriptor.configShape),
) as UnionToIntersection<(typeof VENDORS)[number]['configShape']>;

/**
 * The registered vendor named `provider`, or undefined (the native provider, or a vendor no
 * longer registered: its routes cannot serve).
 */
export function registeredVendor(provider: string): VendorDescriptor<VendorKind> | undefined {
  return VENDORS.find((descriptor) => descriptor.kind === provider);
}

/** Each of `vendors` with its settings from a loaded configuration. */
export function configureVendors<K extends string>(
  config: Readonly<Record<string, unknown>>,
  vendors: readonly VendorDescriptor<K>[],
): ConfiguredVendor<K>[] {
  return vendors.map((descriptor) => ({ descriptor, settings: descriptor.settings(config) }));
}

/** The configured vendor named `kind`; naming an unconfigured vendor is a bug. */
export function configuredVendor<K extends string>(
  vendors: readonly ConfiguredVendor<K>[],
  kind: K,
): ConfiguredVendor<K> {
  const found = vendors.find((vendor) => vendor.descriptor.kind === kind);
  if (!found) throw new Error(`no vendor "${kind}" is configured`);
  return found;
}
