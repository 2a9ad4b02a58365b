// A heading's anchor as GitHub writes it, so a link into a page can be checked and the
// configuration page can link its own sections. The rule is github-slugger's (not a dependency
// here): the heading's text lowercased, every character dropped but letters, digits, marks,
// connectors (`_`), hyphens and spaces, then each space a hyphen. A page that repeats a heading
// numbers the repeats (`-1`, `-2`…); that belongs to whoever reads the page.

const DROPPED = /[^\p{L}\p{M}\p{N}\p{Pc} -]/gu;

/** The anchor of a heading whose text, markup already gone, is `text` (`` `a_b` `` is `a_b`, `**a**` is `a`). */
export function headingAnchor(text: string): string {
  return text.toLowerCase().replace(DROPPED, "").replaceAll(" ", "-");
}
