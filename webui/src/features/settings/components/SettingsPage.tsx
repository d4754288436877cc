/** /dashboard/settings ('Configuración de Cuenta'): username, alias, email, password change and deleting the account. */
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  Modal,
  PasswordInput,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconInfoCircle } from '@tabler/icons-react';
import { useState, type FormEvent, type ReactNode } from 'react';
import { endSession, errorMessage } from '../../../lib/api';
import { useCurrentUser } from '../../../lib/current-user';
import { toast } from '../../../lib/toasts';
import { deleteAccount, removeEmail, updateSettings, type SettingsChange } from '../api/settings';
import { aliasProblem, emailProblem, passwordProblem } from '../validation';

function Section({ title, children }: { title: ReactNode; children: ReactNode }) {
  return (
    <Card withBorder padding="lg">
      <Stack gap="sm">
        <Title order={4}>{title}</Title>
        {children}
      </Stack>
    </Card>
  );
}

/** Sends one settings change; the answer replaces the current user. Resolves to true on success. */
function useSettingsChange() {
  const { setUser } = useCurrentUser();
  const [busy, setBusy] = useState<string | null>(null);
  const run = async (name: string, call: () => Promise<Awaited<ReturnType<typeof updateSettings>>>, success: string) => {
    setBusy(name);
    try {
      setUser(await call());
      toast.success(success);
      return true;
    } catch (error) {
      toast.error(errorMessage(error, 'Hubo un error al realizar la operación.'));
      return false;
    } finally {
      setBusy(null);
    }
  };
  const patch = (name: string, change: SettingsChange, success: string) => run(name, () => updateSettings(change), success);
  return { busy, run, patch };
}

function AliasForm() {
  const { user } = useCurrentUser();
  const { busy, patch } = useSettingsChange();
  const [alias, setAlias] = useState(user.alias ?? '');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = aliasProblem(alias);
    setProblem(invalid);
    if (invalid) return;
    const success = user.alias ? 'Alias modificado correctamente.' : 'Alias configurado correctamente.';
    await patch('alias', { alias: alias.trim() }, success);
  };

  return (
    <Section
      title={
        <Group gap={6}>
          Alias
          <Tooltip label="Su alias se muestra en la sección de salas." withArrow>
            <IconInfoCircle size={18} aria-label="Su alias se muestra en la sección de salas." />
          </Tooltip>
        </Group>
      }
    >
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Group align="flex-end">
          <TextInput
            label="Alias"
            value={alias}
            onChange={(event) => setAlias(event.currentTarget.value)}
            error={problem}
            style={{ flex: 1 }}
          />
          <Button type="submit" loading={busy === 'alias'}>
            {user.alias ? 'Modificar' : 'Configurar'}
          </Button>
        </Group>
      </form>
    </Section>
  );
}

/** Whether the saved address is confirmed; an unconfirmed one was sent a link (at registration or on change). */
function EmailStatus({ email, verified }: { email: string; verified: boolean }) {
  if (verified) {
    return (
      <Group gap="xs">
        <Badge color="green" variant="light" leftSection={<IconCircleCheck size={14} />}>
          Verificado
        </Badge>
        <Text size="sm">{email}</Text>
      </Group>
    );
  }
  return (
    <Alert color="yellow" title="Email sin verificar" role="status">
      Le enviamos un enlace de verificación a <b>{email}</b>. Ábralo para confirmar su email; hasta entonces no podrá
      usarlo para recuperar la contraseña ni recibirá avisos de vencimiento de sus peers. Si no lo encuentra, revise la
      carpeta de spam.
    </Alert>
  );
}

function EmailForm() {
  const { user } = useCurrentUser();
  const { busy, patch, run } = useSettingsChange();
  const [email, setEmail] = useState(user.email ?? '');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = emailProblem(email, user.email);
    setProblem(invalid);
    if (invalid) return;
    await patch('email', { email: email.trim() }, 'Email modificado correctamente.');
  };

  const remove = async () => {
    setProblem(null);
    if (await run('remove', removeEmail, 'Email eliminado correctamente')) setEmail('');
  };

  return (
    <Section title="Email">
      <Text size="sm" c="dimmed">
        Su email solo se usa para recuperar la contraseña y avisarle antes de que venzan sus peers.
      </Text>
      {user.email && <EmailStatus email={user.email} verified={user.email_verified === true} />}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="Email"
            type="email"
            value={email}
            onChange={(event) => setEmail(event.currentTarget.value)}
            error={problem}
          />
          <Group>
            <Button type="submit" loading={busy === 'email'}>
              Guardar email
            </Button>
            {user.email && (
              <Button color="red" variant="light" loading={busy === 'remove'} onClick={() => void remove()}>
                Eliminar email
              </Button>
            )}
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

function PasswordForm() {
  const { busy, patch } = useSettingsChange();
  const [oldPassword, setOldPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = passwordProblem(oldPassword, newPassword, confirmation);
    setProblem(invalid);
    if (invalid) return;
    const changed = await patch(
      'password',
      { old_password: oldPassword, new_password: newPassword },
      'Contraseña cambiada correctamente.',
    );
    if (changed) {
      setOldPassword('');
      setNewPassword('');
      setConfirmation('');
    }
  };

  return (
    <Section title="Cambiar contraseña">
      <form onSubmit={(event) => void submit(event)} noValidate>
        <Stack gap="sm">
          <PasswordInput
            label="Contraseña actual"
            autoComplete="current-password"
            value={oldPassword}
            onChange={(event) => setOldPassword(event.currentTarget.value)}
          />
          <PasswordInput
            label="Nueva contraseña"
            autoComplete="new-password"
            value={newPassword}
            onChange={(event) => setNewPassword(event.currentTarget.value)}
          />
          <PasswordInput
            label="Confirmar nueva contraseña"
            autoComplete="new-password"
            value={confirmation}
            onChange={(event) => setConfirmation(event.currentTarget.value)}
          />
          {problem && (
            <Text c="red" size="sm" role="alert">
              {problem}
            </Text>
          )}
          <Group>
            <Button type="submit" loading={busy === 'password'}>
              Cambiar contraseña
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

/** What is lost, said before the password is asked for (docs/security.md, "Deleting an account"). */
const DELETION_WARNING =
  'Esta acción no se puede deshacer. Sus peers dejan de funcionar de inmediato y el tiempo que les quede se ' +
  'pierde, sin reembolso. Sale de las salas donde esté y las salas que administra se eliminan. Se cierran todas ' +
  'sus sesiones. Sus facturas se conservan, sin sus datos personales, por motivos contables.';

function DeleteAccountSection() {
  const [opened, setOpened] = useState(false);
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [working, setWorking] = useState(false);

  const close = () => {
    if (working) return;
    setOpened(false);
    setPassword('');
    setProblem(null);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!password) {
      setProblem('Escriba su contraseña para confirmar.');
      return;
    }
    setWorking(true);
    try {
      const answer = await deleteAccount(password);
      // The session is gone on the server: leave for the login page, which shows why.
      endSession('/api/client', answer.message);
    } catch (error) {
      setProblem(errorMessage(error, 'No se pudo eliminar la cuenta. Intente de nuevo.'));
      setWorking(false);
    }
  };

  return (
    <Section title="Eliminar cuenta">
      <Text size="sm" c="dimmed">
        Elimina su cuenta y todos sus peers de forma permanente.
      </Text>
      <Group>
        <Button color="red" variant="light" onClick={() => setOpened(true)}>
          Eliminar mi cuenta
        </Button>
      </Group>
      <Modal opened={opened} onClose={close} title="Eliminar cuenta" centered>
        <form onSubmit={(event) => void submit(event)} noValidate>
          <Stack>
            <Alert color="red" icon={<IconAlertTriangle size={18} />} title="Atención" role="alert">
              {DELETION_WARNING}
            </Alert>
            <PasswordInput
              label="Contraseña actual"
              description="Escriba su contraseña para confirmar."
              autoComplete="current-password"
              value={password}
              onChange={(event) => setPassword(event.currentTarget.value)}
              error={problem}
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={close} disabled={working}>
                Cancelar
              </Button>
              <Button type="submit" color="red" loading={working}>
                Eliminar definitivamente
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Section>
  );
}

export function SettingsPage() {
  const { user } = useCurrentUser();
  return (
    <Stack gap="lg" maw={640}>
      <Title order={2}>Configuración de Cuenta</Title>
      <Section title="Cuenta">
        <TextInput label="Usuario" value={user.username} readOnly />
      </Section>
      {user.web_settings.allow_partys && <AliasForm />}
      {user.web_settings.allow_email && <EmailForm />}
      <PasswordForm />
      <DeleteAccountSection />
    </Stack>
  );
}
