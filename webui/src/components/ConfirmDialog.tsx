/** The one confirmation dialog (customer and manager): Cancelar, and a confirm button that reads 'Procesando...'
 * while the action runs. The rooms' generic one is titled 'Confirmar Acción' (the default). */
import { Button, Group, Modal, Stack, Text, type MantineColor } from '@mantine/core';
import { useCallback, useState, type ReactNode } from 'react';

interface Props {
  opened?: boolean;
  title?: string;
  children: ReactNode;
  confirmLabel?: string;
  /** Red for actions that remove or cut something off. */
  color?: MantineColor;
  /** The dialog closes itself once this settles. */
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
}

export function ConfirmDialog({
  opened = true,
  title = 'Confirmar Acción',
  children,
  confirmLabel = 'Confirmar',
  color,
  onConfirm,
  onClose,
}: Props) {
  const [working, setWorking] = useState(false);
  const confirm = async () => {
    setWorking(true);
    try {
      await onConfirm();
    } finally {
      setWorking(false);
      onClose();
    }
  };
  return (
    <Modal opened={opened} onClose={() => !working && onClose()} title={title} centered>
      <Stack>
        <Text size="sm" component="div">
          {children}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} disabled={working}>
            Cancelar
          </Button>
          <Button color={color} onClick={() => void confirm()} disabled={working}>
            {working ? 'Procesando...' : confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

export interface Confirmation {
  title?: string;
  message: ReactNode;
  confirmLabel?: string;
  color?: MantineColor;
  onConfirm: () => Promise<unknown>;
}

/** For pages that confirm from event handlers: `ask({...})` opens the dialog, `dialog` is rendered once. */
export function useConfirmation(): { ask: (confirmation: Confirmation) => void; dialog: ReactNode } {
  const [pending, setPending] = useState<Confirmation | null>(null);
  const close = useCallback(() => setPending(null), []);
  const dialog = pending && (
    <ConfirmDialog
      title={pending.title}
      confirmLabel={pending.confirmLabel}
      color={pending.color}
      onConfirm={pending.onConfirm}
      onClose={close}
    >
      {pending.message}
    </ConfirmDialog>
  );
  return { ask: setPending, dialog };
}
