import type { EnglishMessages, TableOf } from './i18n.ts';
import type { EnglishListingsTexts } from './listings-texts.ts';

/** The host pages in Spanish (Spain; formal "usted", as the Romanian and Italian pages address the host). */

export const es: TableOf<EnglishMessages> = {
  'app.name': 'Distribución para anfitriones',
  'layout.skip': 'Ir al contenido',
  'layout.organization': 'Organización: {name}',
  'layout.nav': 'Páginas para anfitriones',
  'layout.owners': 'Propietarios y canales',
  'layout.language': 'Idioma',
  'layout.change_language': 'Cambiar idioma',
  'layout.sign_out': 'Cerrar sesión',
  'layout.footer': 'Páginas del servicio de distribución, abiertas desde su plataforma.',
  'owners.title': 'Propietarios y canales',
  'owners.intro':
    'Cada propietario de su organización, con los canales en los que se distribuyen sus alojamientos. Conecte un propietario para vincularlo con su cuenta en un canal.',
  'owners.none': 'Esta organización aún no tiene propietarios.',
  'owners.no_channels': 'Ningún alojamiento de este propietario se distribuye todavía en un canal.',
  'owners.channel': 'Canal',
  'owners.state': 'Conexión',
  'owners.action': 'Acción',
  'owners.connected': 'Conexión activa desde el {when}',
  'owners.not_connected': 'Sin conexión',
  'owners.connect': 'Conectar',
  'owners.connect_again': 'Volver a conectar',
  'owners.channel_suspended': '(canal suspendido: las conexiones están en pausa)',
  'handoff.title': 'Le llevamos a {channel}',
  'signed_out.title': 'Ha cerrado la sesión',
  'signed_out.body': 'Para volver, abra de nuevo las páginas para anfitriones desde su plataforma.',
  'link.used.title': 'Este enlace ya se ha utilizado',
  'link.used.body':
    'Un enlace de acceso solo funciona una vez. Abra de nuevo las páginas para anfitriones desde su plataforma para obtener uno nuevo.',
  'link.expired.title': 'Este enlace ha caducado',
  'link.expired.body':
    'Un enlace de acceso es válido durante 5 minutos. Abra de nuevo las páginas para anfitriones desde su plataforma para obtener uno nuevo.',
  'link.unknown.title': 'Este enlace no es válido',
  'link.unknown.body':
    'Compruebe que ha abierto el enlace completo, o abra de nuevo las páginas para anfitriones desde su plataforma.',
  'session.ended.title': 'Su sesión ha terminado',
  'session.ended.body':
    'Una sesión termina tras 8 horas sin actividad, 12 horas después de iniciarla o al cerrarla. Abra de nuevo las páginas para anfitriones desde su plataforma.',
  'form.expired.title': 'Este formulario ya no es válido',
  'form.expired.body': 'Vuelva a los propietarios, recargue la página e inténtelo de nuevo.',
  'not_found.title': 'Página no encontrada',
  'not_found.body': 'Esta página no existe para su organización.',
  'error.title': 'Se ha producido un error',
  'error.body': 'Inténtelo de nuevo en unos instantes. Si sigue ocurriendo, indique esta referencia: {reference}.',
  'unavailable.title': 'No disponible en este momento',
  'unavailable.body':
    'No se puede acceder a esta parte del servicio en este momento. Inténtelo de nuevo en unos instantes.',
  'back.owners': 'Volver a propietarios y canales',
  'connect.not_configured.title': 'Este canal aún no acepta conexiones',
  'connect.not_configured.body':
    'El canal no ha configurado todavía la conexión de propietarios con el servicio. Inténtelo más tarde o póngase en contacto con el canal.',
  'connect.suspended.title': 'Este canal está suspendido',
  'connect.suspended.body':
    'El canal no puede aceptar conexiones nuevas mientras esté suspendido. Inténtelo de nuevo cuando se reactive.',
  'connect.not_distributed.title': 'Nada que conectar en este canal',
  'connect.not_distributed.body':
    'Ningún alojamiento de este propietario está publicado ahora en el canal (puede que un alojamiento esté pendiente de sus datos legales). Conéctelo cuando se publique un alojamiento.',
  'form.invalid.title': 'No se puede leer esta solicitud',
  'form.invalid.body':
    'Contiene un carácter que ningún texto puede contener (U+0000), en: {fields}. Vuelva atrás y envíela de nuevo sin él.',
  'form.unreadable.title': 'No se ha podido leer el formulario',
  'form.unreadable.body':
    'Su navegador envió un formulario que esta página no acepta. Vuelva atrás, recargue la página y envíelo de nuevo.',
  'connect.too_many.title': 'Demasiadas conexiones iniciadas',
  'connect.too_many.body':
    'Se han iniciado conexiones con demasiada frecuencia en poco tiempo. Inténtelo de nuevo dentro de {seconds} s.',
  'switch.title': '¿Cambiar de organización?',
  'switch.body':
    'Ha iniciado sesión en {current}. Este enlace le hace iniciar sesión en {next}: si continúa, saldrá de {current}.',
  'switch.continue': 'Continuar como {next}',
  'switch.stay': 'Quedarse en {current}',
};

export const esListings: TableOf<EnglishListingsTexts> = {
  nav: 'Anuncios',
  'overview.title': 'Anuncios en los canales',
  'overview.intro':
    'Lo que cada canal ha comunicado sobre sus alojamientos: si el anuncio está publicado, su dirección pública, su promoción y cualquier rechazo.',
  'overview.none': 'Esta organización aún no tiene alojamientos.',
  'overview.showing': {
    one: 'Un alojamiento',
    many: 'Alojamientos {from}–{to} de {count}',
    other: 'Alojamientos {from}–{to} de {count}',
  },
  'overview.none_matching': 'Ningún alojamiento coincide con estos filtros.',
  'filter.title': 'Filtrar los alojamientos',
  'filter.channel': 'Canal',
  'filter.any_channel': 'Todos los canales',
  'filter.status': 'Último informe',
  'filter.any_status': 'Cualquiera',
  'filter.no_report': 'Aún sin informe',
  'filter.apply': 'Mostrar',
  'filter.clear': 'Mostrar todos los alojamientos',
  'pager.label': 'Páginas de alojamientos',
  'pager.previous': 'Página anterior',
  'pager.next': 'Página siguiente',
  'pager.position': 'Página {page} de {pages}',
  'attention.title': 'Pendiente',
  'attention.none': 'Ahora mismo no hay nada que requiera su atención.',
  'attention.withdrawn_certificate':
    'El alojamiento {property} se ha retirado de {channel}: su certificado de clasificación ya no es válido. Renuévelo en su plataforma.',
  'attention.withdrawn_other':
    'El alojamiento {property} se ha retirado de {channel}: no puede publicarse tal como está. Revíselo en su plataforma.',
  'attention.rejected':
    '{channel} ha rechazado el anuncio del alojamiento {property}. Motivo: {reason}. Corríjalo en su plataforma.',
  'attention.expiring':
    'El certificado del alojamiento {property} caduca el {date}: ese día el alojamiento se retirará de {channels}. Renuévelo antes.',
  'attention.not_connected': {
    one: 'Todavía no hay ninguna conexión entre {owner} y {channel}, que publica uno de los alojamientos del propietario. Créela en la página de propietarios.',
    other:
      'Todavía no hay ninguna conexión entre {owner} y {channel}, que publica {count} de los alojamientos del propietario. Créela en la página de propietarios.',
  },
  'attention.owners_link': 'Propietarios y canales',
  // Spanish puts "de" between a round million and its noun (CLDR category `many`).
  'attention.more': {
    one: 'Otro asunto pendiente no aparece aquí.',
    many: 'Otros {count} de asuntos pendientes no aparecen aquí.',
    other: 'Otros {count} asuntos pendientes no aparecen aquí.',
  },
  'attention.more_rejected': 'Todos los anuncios rechazados por {channel}',
  'status.published': 'Publicado',
  'status.unpublished': 'No publicado',
  'status.pending_review': 'En revisión',
  'status.rejected': 'Rechazado',
  'status.other': 'Comunicado como «{status}»',
  'field.status': 'Estado',
  'field.url': 'Dirección pública',
  'field.promotion': 'Promoción',
  'field.rejection': 'Rechazo',
  'field.updated': 'Comunicado',
  'report.none': 'Todavía no hay ningún informe de {channel}.',
  'report.open': 'Abrir el anuncio en {channel}',
  'report.no_url': 'Ninguna',
  'promotion.none': 'Sin promoción',
  'promotion.until': 'En promoción hasta el {when}',
  'promotion.open': 'En promoción, sin fecha de fin',
  'rejection.reason': 'Motivo: {reason}',
  'reason.photos': 'Fotos',
  'reason.description': 'Descripción',
  'reason.legal': 'Datos legales',
  'reason.duplicate': 'Duplicado de otro anuncio',
  'reason.other': 'código del canal «{code}»',
  'rejection.no_text': 'El canal no ha dado ninguna explicación.',
  'updated.text': 'En este estado desde el {since}; último informe el {received}',
  'visibility.withdrawn': 'Retirado de este canal',
  'visibility.deleted': 'Eliminado',
  'visibility.pending': 'Aún no se muestra al canal',
  'visibility.not_distributed': 'Ya no se distribuye en este canal',
  'property.none_distributed': 'Este alojamiento no se distribuye en ningún canal.',
  'property.details': 'Historial y estadísticas',
  'property.back': 'Volver a los anuncios',
  'history.title': 'Historial de informes',
  'history.changed': 'Cambio',
  'chart.title': 'Visualizaciones y clics, últimos 30 días',
  'chart.label': '{channel}: visualizaciones y clics hacia la reserva por día, del {from} al {to}',
  'chart.summary': '{views} y {clicks} en {days}; máximo de visualizaciones en un día: {max}.',
  // Spanish puts "de" between a round million and its noun (CLDR category `many`).
  'chart.count_views': {
    one: '{count} visualización',
    many: '{count} de visualizaciones',
    other: '{count} visualizaciones',
  },
  'chart.count_clicks': {
    one: '{count} clic hacia la reserva',
    many: '{count} de clics hacia la reserva',
    other: '{count} clics hacia la reserva',
  },
  'chart.count_days': {
    one: '{count} día con datos',
    many: '{count} de días con datos',
    other: '{count} días con datos',
  },
  'chart.views_axis': 'Visualizaciones (máximo en un día: {max})',
  'chart.clicks_axis': 'Clics hacia la reserva (máximo en un día: {max})',
  'chart.none': 'No hay estadísticas de {channel} en los últimos 30 días.',
  'chart.views': 'Visualizaciones',
  'chart.clicks': 'Clics hacia la reserva',
  'chart.table': 'Los datos en una tabla',
  'chart.date': 'Fecha',
  'chart.no_report': 'sin datos',
  'bookings.title': 'Reservas',
  'bookings.body': 'Las reservas procedentes de los canales todavía no forman parte de este servicio.',
};
