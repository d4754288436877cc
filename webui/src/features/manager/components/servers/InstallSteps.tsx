import { Alert, Button, Code, CopyButton, Group, Modal, ScrollArea, Stack, Text } from '@mantine/core';
import type { ServerCreated } from '../../api/manager';

/** The one-time credential and the exact install steps, shown right after creating or reissuing. */
export function InstallSteps({ created, onClose }: { created: ServerCreated; onClose: () => void }) {
  return (
    <Modal opened onClose={onClose} title={`Instalar el agente en ${created.server.name}`} size="xl">
      <Stack>
        <Alert color="yellow" title="La credencial se muestra una sola vez">
          Guárdela ahora: el servidor solo conserva un hash. Si la pierde, emita una nueva.
        </Alert>
        <Group gap="xs">
          <Text size="sm">Credencial:</Text>
          <Code data-testid="credential" style={{ wordBreak: 'break-all' }}>
            {created.credential}
          </Code>
          <CopyButton value={created.credential}>
            {({ copied, copy }) => (
              <Button size="xs" variant="light" onClick={copy}>
                {copied ? 'Copiada' : 'Copiar'}
              </Button>
            )}
          </CopyButton>
        </Group>
        {(created.install_missing ?? []).length > 0 && (
          <Alert color="red" title="Pasos incompletos: faltan ajustes en el panel">
            Defina {(created.install_missing ?? []).join(', ')} en la configuración del panel (controlplane.env) y emita una credencial nueva para ver
            los pasos exactos. Mientras tanto, complete a mano las líneas marcadas con FALTA.
          </Alert>
        )}
        <Text size="sm">Ejecute como root en el servidor nuevo (Debian 12 o posterior):</Text>
        <ScrollArea.Autosize mah={360}>
          {/* Long lines wrap where they must, so a phone shows every one whole; copying keeps them as they are. */}
          <Code block data-testid="install-steps" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
            {created.install}
          </Code>
        </ScrollArea.Autosize>
        <Group justify="space-between">
          <CopyButton value={created.install}>
            {({ copied, copy }) => (
              <Button variant="light" onClick={copy}>
                {copied ? 'Pasos copiados' : 'Copiar los pasos'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>Listo</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
