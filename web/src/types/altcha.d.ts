/**
 * `<altcha-widget>` in JSX. The altcha package (2.3) ships the JSX declaration itself
 * (`React.JSX.IntrinsicElements['altcha-widget']`, typed `AltchaWidgetReact`, plus the widget's
 * methods and events as globals); referencing the package here makes it part of every compilation,
 * so we do not redeclare it (a second, different declaration of the same element would conflict).
 * The widget is loaded lazily by `components/Captcha.tsx` (`import('altcha')`).
 */
/// <reference types="altcha" />
export {};
