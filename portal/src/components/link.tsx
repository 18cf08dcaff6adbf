import type { ComponentChildren } from 'preact';
import { followLink } from '../router';

export function Link({ href, children, class: cls, current }: { href: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return <a href={href} class={cls} onClick={followLink} aria-current={current ? 'page' : undefined}>{children}</a>;
}
