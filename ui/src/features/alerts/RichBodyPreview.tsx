// The alert card's body in the live preview (and so in Save PNG, which draws the preview): the
// draft's rich body drawn as React elements from richBody's allowlisted tree, so no HTML string is
// ever injected. A placeholder line with a known image shows the image; links open in a new
// window without a referrer; highlights carry their data-hl name for styles.css.
import { createElement, Fragment, type ReactNode } from 'react';
import type { BodyImages } from './bodyImages';
import { richTree, type RichNode } from './richBody';

function draw(nodes: RichNode[]): ReactNode[] {
  return nodes.map((n, i) => {
    if (n.kind === 'text') return <Fragment key={i}>{n.text}</Fragment>;
    if (n.kind === 'image') return <img key={i} src={n.image.src} alt={n.image.alt} className="alert-body-image" data-testid="alert-preview-image" />;
    // An image is a block of its own: the <br> that ends its line in mail would add a blank one here.
    if (n.tag === 'br') return nodes[i - 1]?.kind === 'image' ? null : <br key={i} />;
    if (n.tag === 'a') {
      return n.href ? <a key={i} href={n.href} target="_blank" rel="noopener noreferrer">{draw(n.children)}</a> : <Fragment key={i}>{draw(n.children)}</Fragment>;
    }
    if (n.tag === 'span') return <span key={i} data-hl={n.hl}>{draw(n.children)}</span>;
    return createElement(n.tag, { key: i }, ...draw(n.children));
  });
}

export function RichBodyPreview({ body, images }: { body: string; images: BodyImages }) {
  return <>{draw(richTree(body, images))}</>;
}
