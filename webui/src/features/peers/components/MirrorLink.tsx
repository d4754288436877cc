/** A peer's mirror link with a copy button; the copy is confirmed for 2 s (docs/contract.md#mirror-links). */
import { ActionIcon, Group, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useEffect, useRef, useState } from 'react';
import { toast } from '../../../lib/toasts';

export const COPY_CONFIRMATION_MS = 2000;

export function MirrorLink({ link }: { link: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      // No clipboard outside secure contexts (plain http on a LAN address) or without permission.
      toast.error('No se pudo copiar el mirror link. Cópielo manualmente.');
      return;
    }
    setCopied(true);
    notifications.show({
      message: 'Mirror link copiado en el portapapeles.',
      color: 'green',
      autoClose: COPY_CONFIRMATION_MS,
    });
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPY_CONFIRMATION_MS);
  };

  return (
    <Group gap={4} wrap="nowrap">
      <Text size="sm" truncate="end" maw={150} title={link}>
        {link}
      </Text>
      <Tooltip label={copied ? 'Copiado' : 'Copiar mirror link'} withArrow>
        <ActionIcon
          variant="subtle"
          color={copied ? 'teal' : 'gray'}
          aria-label={copied ? 'Mirror link copiado' : 'Copiar mirror link'}
          onClick={() => void copy()}
        >
          {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}
