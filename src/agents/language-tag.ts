import { z } from 'zod';

/**
 * The BCP 47 tags the service takes: a language of two or three letters (ISO 639, as speech
 * recognizers and translators take it), then optionally a script, a region and one variant
 * (`en`, `es-MX`, `zh-Hans`, `sr-Latn-RS`, `de-CH-1996`). Every tag of this form is one
 * `Intl.getCanonicalLocales` accepts, so the document states the rule whole.
 */
export const LANGUAGE_TAG_PATTERN =
  /^[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))?$/;

export function languageTagSchema() {
  return z
    .string()
    .regex(LANGUAGE_TAG_PATTERN, 'a BCP 47 language tag such as en, es-MX or zh-Hans');
}
