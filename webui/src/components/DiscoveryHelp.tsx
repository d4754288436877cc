/** What a host does when the room never hears its game: shown on the room page and in Ayuda (docs/webui.md,
 * "Rooms: who can hear whom"). Windows sends a game's broadcast out of the adapter with the lowest metric, new
 * adapters land in the Public firewall profile, and games pick their multicast adapter when they start. */
import { List } from '@mantine/core';

export function DiscoveryHelp() {
  return (
    <List spacing={4} size="sm" data-testid="discovery-help">
      <List.Item>
        Conecte el túnel antes de abrir el juego, y si ya estaba abierto, reinícielo: muchos juegos (Minecraft entre
        ellos) eligen la red donde anunciarse al arrancar.
      </List.Item>
      <List.Item>
        En Windows, dé al adaptador del túnel la métrica de interfaz más baja (Configuración de red › adaptador de
        WireGuard › Propiedades › IPv4 › Opciones avanzadas › Métrica de la interfaz, por ejemplo 5), para que el
        juego envíe sus anuncios por el túnel y no por el Wi-Fi o el cable.
      </List.Item>
      <List.Item>
        Marque como «Red privada» solo la red del túnel (Configuración › Red e Internet › la conexión del túnel), y
        permita el juego en el cortafuegos para redes privadas. No cambie el perfil de otras redes (por ejemplo, una
        Wi-Fi pública).
      </List.Item>
      <List.Item>
        Si aun así no aparece, únase por dirección: copie la IP privada del anfitrión (la sala la muestra junto a su
        peer) en la opción «Conectar» o «Unirse por IP» del juego.
      </List.Item>
    </List>
  );
}

