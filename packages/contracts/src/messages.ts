/**
 * Spanish texts that both the server and the SPA must agree on (validation and API errors).
 * The strings quoted by the product spec are used verbatim.
 */
export const msg = {
  captchaRequired: 'Por favor, complete el captcha',
  captchaInvalid: 'La verificación humana no es válida. Por favor, inténtelo de nuevo.',
  credentialsRequired: 'El usuario y contraseña son obligatorios',
  passwordsMismatch: 'Las contraseñas no coinciden',
  usernameTaken: 'El nombre de usuario ya está en uso',
  usernameFormat: 'El usuario debe tener entre 3 y 32 caracteres: letras, números, punto, guion o guion bajo',
  passwordTooShort: 'La contraseña debe tener al menos 8 caracteres',
  passwordTooLong: 'La contraseña no puede tener más de 128 caracteres',
  emailInvalid: 'El email no es válido',
  emailTaken: 'El email ya está en uso',
  emailNotAllowed: 'El registro con email no está habilitado',
  registrationClosed: 'El registro de nuevos usuarios está deshabilitado',
  registered: 'Usuario registrado correctamente',
  invalidCredentials: 'Usuario o contraseña incorrectos',
  accountDisabled: 'La cuenta está deshabilitada',
  tooManyAttempts: 'Demasiados intentos. Por favor, espere un momento e intente de nuevo.',
  invalidRefresh: 'La sesión ha expirado. Por favor, inicie sesión de nuevo.',
  unauthorized: 'No autorizado. Por favor, inicie sesión.',
  forbidden: 'No tiene permiso para realizar esta acción',
  maintenance: 'El servicio está en mantenimiento. Por favor, intente más tarde.',
  notFound: 'Recurso no encontrado',
  invalidRequest: 'La solicitud no es válida',
  invalidJson: 'El cuerpo de la solicitud no es un JSON válido',
  bodyTooLarge: 'La solicitud es demasiado grande',
  internal: 'Ocurrió un error inesperado en el servidor',
  loggedOut: 'Sesión cerrada correctamente',
} as const;
