import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders, testUser } from '../../../testing/render';
import { HelpPage } from './HelpPage';

describe('help centre', () => {
  it('has the three sections and the FAQs of the contract', () => {
    renderWithProviders(<HelpPage />, { user: testUser() });
    expect(screen.getByRole('heading', { name: 'Centro de Ayuda' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Configuración del VPN' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Uso de las Salas' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Preguntas Frecuentes' })).toBeInTheDocument();
    expect(screen.getByText(/juegos que buscan partidas en la red local/)).toBeInTheDocument();
    expect(screen.getByText(/un solo dispositivo conectado a la vez/)).toBeInTheDocument();
    expect(screen.getByText(/vuelva a descargar la configuración/)).toBeInTheDocument();
    expect(screen.getByText(/servidor que permita conexiones entre salas/)).toBeInTheDocument();
    expect(screen.getByText(/MikroTik están soportados desde la versión 7.1/)).toBeInTheDocument();
  });

  it('says which games find each other alone and how to join by address when a game cannot', () => {
    renderWithProviders(<HelpPage />, { user: testUser() });
    expect(screen.getByRole('heading', { name: 'Juegos en LAN' })).toBeInTheDocument();
    const games = screen.getByTestId('help-lan-games');
    expect(games).toHaveTextContent(/sin escribir ninguna dirección/);
    expect(games).toHaveTextContent(/Minecraft \(Java\)/);
    expect(games).toHaveTextContent(/Counter-Strike/);
    expect(games).toHaveTextContent(/Warcraft III/);
    expect(games).toHaveTextContent(/únase por dirección: quien crea la partida copia su IP privada/);
    expect(screen.getByText(/«En línea»/)).toBeInTheDocument();
  });

  it('leaves out room usage when rooms are not allowed', () => {
    renderWithProviders(<HelpPage />, { user: testUser({ web_settings: { allow_partys: false, allow_email: true } }) });
    expect(screen.queryByRole('heading', { name: 'Uso de las Salas' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Juegos en LAN' })).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Preguntas Frecuentes' })).toBeInTheDocument();
  });
});
