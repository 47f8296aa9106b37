import { hash } from 'node:crypto';

const BUILD_METADATA = /^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/;

/**
 * `<base>+<tag>`: what the extractor's output depends on beyond its code (a model) as SemVer build
 * metadata, so extracting again with another one is another version (other command ids, another
 * actor). A tag that is not valid build metadata (`org/model`, `model:tag`) or would make the actor
 * `extractor:<name>@<version>` longer than an id's 128 code points is written with `-` and a digest
 * of the exact tag, so two tags never share a version.
 */
export function versionWith(name: string, base: string, tag: string): string {
  const maxTag = 128 - `extractor:${name}@${base}+`.length;
  if (BUILD_METADATA.test(tag) && tag.length <= maxTag) return `${base}+${tag}`;
  const digest = hash('sha256', tag, 'hex').slice(0, 8);
  const readable = tag
    .replace(/[^0-9A-Za-z-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxTag - digest.length - 1);
  return `${base}+${readable ? `${readable}-` : ''}${digest}`;
}
